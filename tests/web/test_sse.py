"""Live updates: snapshots and changes, slow viewers dropped, heartbeats, a clean shutdown."""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any

from flask import Flask

from nardy.referee.events import EventBus
from nardy.referee.session import Referee
from nardy.rules import Position
from nardy.web.app import close_app, create_app, dashboard_of, serve_in_thread
from nardy.web.services import Services, Settings
from nardy.web.sse import Broadcaster, TooManyViewers, Viewer, ViewerClosed
from tests.web.conftest import TOKEN, make_referee


def parse(text: str) -> dict[str, Any]:
    """One SSE message's fields (data parsed as JSON)."""
    fields: dict[str, Any] = {}
    for line in text.strip().splitlines():
        key, _, value = line.partition(": ")
        fields[key] = json.loads(value) if key == "data" else value
    return fields


def test_a_viewer_gets_the_full_state_then_changes_that_follow_on(referee: Referee) -> None:
    broadcaster = Broadcaster(referee.bus, referee.state, queue_size=16)
    try:
        viewer = broadcaster.connect()
        first = parse(viewer.take(1) or "")
        assert first["event"] == "state" and first["data"]["full"]["version"] == referee.bus.seq
        rev = first["data"]["rev"]
        state = dict(first["data"]["full"])
        start = state["version"]
        referee.on_roll((3, 1), "manual")
        kinds: list[str] = []
        message = {"rev": rev}
        # a burst may come in one message or several, and a message's snapshot may already hold
        # events that the next message carries: read on until both have caught up
        while state["version"] != referee.bus.seq or len(kinds) < referee.bus.seq - start:
            more = parse(viewer.take(5) or "")["data"]
            assert more["base"] == message["rev"] and more["rev"] == message["rev"] + 1
            state.update(more["changed"])
            kinds += [e["kind"] for e in more["events"]]
            message = more
        assert kinds == ["opening", "roll"]
        assert state == referee.state()  # applying the changes gives the snapshot
        assert "moves" not in message["changed"]  # only what changed is sent
    finally:
        broadcaster.close()


def test_the_referee_never_waits_for_snapshots_or_viewers() -> None:
    referee = make_referee("short")
    gate = threading.Event()
    threads: list[str] = []

    def slow_snapshot() -> dict[str, Any]:
        threads.append(threading.current_thread().name)
        gate.wait(5)
        return referee.state()

    broadcaster = Broadcaster(referee.bus, slow_snapshot, queue_size=4)
    try:
        broadcaster.start()
        t0 = time.perf_counter()
        for _ in range(20):
            referee.command("new-game")
        elapsed = time.perf_counter() - t0
        assert elapsed < 1.0  # the snapshot is blocked, the referee is not
        assert threading.current_thread().name not in threads
    finally:
        gate.set()
        broadcaster.close()


def test_a_slow_viewer_is_dropped_and_the_others_keep_up(referee: Referee) -> None:
    broadcaster = Broadcaster(referee.bus, referee.state, queue_size=3)
    try:
        slow = broadcaster.connect()
        fast = broadcaster.connect()
        received: list[str] = []
        for i in range(6):
            referee.command("new-game")
            broadcaster.publish([])  # one message each, in this thread: deterministic
            referee.report_alert("storage", "info", f"note {i}")
            broadcaster.publish([])
            while (m := fast.take(0)) is not None:
                received.append(m)
        assert slow.dropped and not fast.dropped
        assert broadcaster.dropped == 1 and broadcaster.viewers == 1
        try:
            slow.take(0)
            raise AssertionError("a dropped viewer's stream must end")
        except ViewerClosed:
            pass
        assert len(received) >= 12
    finally:
        broadcaster.close()


def test_viewer_limit(referee: Referee) -> None:
    broadcaster = Broadcaster(referee.bus, referee.state, max_viewers=2)
    try:
        broadcaster.connect()
        broadcaster.connect()
        try:
            broadcaster.connect()
            raise AssertionError("the third viewer must be refused")
        except TooManyViewers as exc:
            assert "2 viewers" in str(exc)
    finally:
        broadcaster.close()


def test_viewer_queue_basics() -> None:
    viewer = Viewer(2)
    assert viewer.take(0) is None
    assert viewer.offer("a") and viewer.offer("b")
    assert not viewer.offer("c") and viewer.dropped
    try:
        viewer.take(0)
        raise AssertionError("dropped")
    except ViewerClosed:
        pass


def test_the_event_stream_over_the_test_client(referee: Referee) -> None:
    app = create_app(Services(referee, settings=Settings(token=TOKEN, heartbeat_seconds=0.05)))
    try:
        client = app.test_client()
        response = client.get("/events", buffered=False)
        assert response.status_code == 200 and response.mimetype == "text/event-stream"
        assert response.headers["Cache-Control"] == "no-cache"
        chunks = (bytes(c) for c in response.response)  # type: ignore[arg-type]
        assert next(chunks) == b"retry: 1000\n\n"
        first = parse(next(chunks).decode())
        assert first["data"]["full"]["match"]["white"] == "Anna"
        assert next(chunks) == b": heartbeat\n\n"  # idle: a heartbeat after heartbeat_seconds
        referee.on_roll((6, 5), "e-dice")
        change = parse(next(chunks).decode())
        assert change["data"]["changed"]["turn"]["roll"] == [6, 5]
        assert dashboard_of(app).broadcaster.viewers == 1
        response.close()
        assert dashboard_of(app).broadcaster.viewers == 0
    finally:
        close_app(app)


def test_too_many_viewers_get_503(referee: Referee) -> None:
    app = create_app(Services(referee, settings=Settings(token=TOKEN, max_viewers=1)))
    try:
        client = app.test_client()
        first = client.get("/events", buffered=False)
        second = client.get("/events")
        assert second.status_code == 503 and "viewers" in second.get_json()["error"]
        first.close()
    finally:
        close_app(app)


def _read_event(conn: http.client.HTTPResponse) -> dict[str, Any]:
    lines: list[str] = []
    while True:
        line = conn.readline().decode()
        if line in ("\n", ""):
            if lines:
                return parse("".join(lines))
            if line == "":
                raise EOFError
            continue
        if not line.startswith(":") and not line.startswith("retry"):
            lines.append(line)


def test_a_real_server_streams_and_stops_cleanly(app: Flask, referee: Referee) -> None:
    handle = serve_in_thread(app, "127.0.0.1", 0)
    try:
        assert handle.link() == f"http://127.0.0.1:{handle.port}/?token={TOKEN}"
        conn = http.client.HTTPConnection("127.0.0.1", handle.port, timeout=10)
        conn.request("GET", "/events")
        response = conn.getresponse()
        assert response.status == 200
        first = _read_event(response)
        assert "full" in first["data"]
        referee.on_roll((4, 2), "manual")
        change = _read_event(response)
        assert change["data"]["changed"]["dice"]["last"] == [4, 2]
    finally:
        handle.stop()
    # the stream ended with the server: the client sees the end, not a hang
    try:
        while True:
            _read_event(response)
    except (EOFError, http.client.IncompleteRead, ConnectionError):
        pass
    conn.close()
    assert not handle.thread.is_alive()


def test_closing_twice_and_connecting_after_close_are_harmless() -> None:
    referee = make_referee("long")
    broadcaster = Broadcaster(EventBus(), referee.state)
    broadcaster.close()
    broadcaster.close()
    viewer = broadcaster.connect()
    try:
        viewer.take(0)
        raise AssertionError("closed")
    except ViewerClosed:
        pass


def test_messages_are_strict_json_even_with_infinite_numbers(referee: Referee) -> None:
    """A correction is decided with an infinite margin; browsers' JSON has no Infinity."""
    broadcaster = Broadcaster(referee.bus, referee.state, queue_size=64)

    def strict(text: str) -> Any:
        def refuse(name: str) -> None:
            raise AssertionError(f"{name} in the stream")

        return json.loads(text, parse_constant=refuse)

    try:
        viewer = broadcaster.connect()
        referee.on_roll((3, 1), "manual")
        referee.command("correct", position=Position.initial("short").apply("8/5 6/5").to_json())
        events: list[dict[str, Any]] = []
        while referee.bus.seq not in [e["seq"] for e in events]:
            text = viewer.take(5) or ""
            data = strict(text.split("data: ", 1)[1])
            events += data.get("events", [])
        (play,) = [e for e in events if e["kind"] == "play"]
        assert play["margin"] is None and play["play"] == "8/5 6/5"
    finally:
        broadcaster.close()


def test_the_api_answers_strict_json(client: Any, referee: Referee) -> None:
    body = client.get("/api/state").get_data(as_text=True)
    assert "Infinity" not in body and "NaN" not in body
    assert client.application.json.dumps({"x": float("inf")}) == '{"x":null}'
