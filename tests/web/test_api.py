"""The JSON API over a real referee: state, commands, validation, modes and hints."""

from __future__ import annotations

import json
import threading

import pytest
from flask import Flask
from flask.testing import FlaskClient

from nardy.referee.events import ILLEGAL_PLAY
from nardy.referee.session import Referee
from nardy.rules import Position
from nardy.web.app import close_app, create_app, dashboard_of
from nardy.web.services import Services, Settings
from tests.web.conftest import TOKEN, Controls, Table, bearer, make_referee
from tests.web.fakes import FakeHints


def command(client: FlaskClient, name: str, body: object = None) -> tuple[int, dict[str, object]]:
    response = client.post(f"/api/command/{name}", json={} if body is None else body, headers=bearer())
    return response.status_code, response.get_json()


# ================================================================================ reading
def test_state_is_the_referees_with_the_dashboards_additions(client: FlaskClient, referee: Referee) -> None:
    referee.on_roll((3, 1), "manual")
    data = client.get("/api/state").get_json()
    assert data["version"] == referee.bus.seq
    assert data["turn"]["mover"] == "white" and data["turn"]["roll"] == [3, 1]
    assert data["mode"] == "training" and data["services"] == {
        "camera": False,
        "archive": False,
        "hints": False,
        "calibration": False,
    }
    assert {p["play"] for p in data["legal"]} >= {"8/5 6/5"}
    assert data["hint"] is None and data["camera"]["present"] is False


def test_the_live_page_carries_the_current_state_for_a_late_viewer(client: FlaskClient, table: Table) -> None:
    start = Position.initial("short")
    table.show(start)
    table.roll(3, 1)
    table.show(start.apply("8/5 6/5"))
    table.roll(6, 4)
    page = client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    initial = html.split('id="initial-state">', 1)[1].split("</script>", 1)[0]
    state = json.loads(initial)
    assert state["moves"][0]["play"] == "8/5 6/5" and state["turn"]["mover"] == "black"
    assert 'data-authorized="no"' in html


@pytest.mark.parametrize("path", ["/", "/calibrate", "/history"])
def test_pages_render_for_viewers_with_strict_headers(client: FlaskClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 200
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    html = response.get_data(as_text=True)
    assert "<script>" not in html  # no inline scripts: the CSP would block them
    assert 'name="csrf-token"' in html


def test_static_files_ship_with_the_package(client: FlaskClient) -> None:
    for name in (
        "js/common.js",
        "js/board.js",
        "js/live.js",
        "js/calibrate.js",
        "js/history.js",
        "css/dashboard.css",
        "favicon.svg",
    ):
        response = client.get(f"/static/{name}")
        assert response.status_code == 200, name
        response.close()


# ================================================================================ commands
def test_manual_dice_then_a_played_move_then_the_next_throw(client: FlaskClient, referee: Referee) -> None:
    status, data = command(client, "roll", {"dice": [3, 1]})
    assert status == 200 and data["ok"] and data["version"] == referee.bus.seq
    after = Position.initial("short").apply("8/5 6/5").to_json()
    status, data = command(client, "correct", {"position": after})
    assert status == 200 and data["legal"] is True
    status, _ = command(client, "roll", {"dice": [6, 4]})
    assert status == 200
    state = client.get("/api/state").get_json()
    assert state["moves"][0]["play"] == "8/5 6/5" and state["turn"]["mover"] == "black"
    assert state["dice"]["source"] == "manual"


def test_refused_commands_say_why_with_409(client: FlaskClient) -> None:
    status, data = command(client, "undo")
    assert status == 409 and data["error"] == "nothing to undo in this game"
    status, data = command(client, "take")
    assert status == 409 and "no double" in str(data["error"])
    status, data = command(client, "accept")
    assert status == 409 and "no illegal play" in str(data["error"])
    status, data = command(client, "reject")
    assert status == 409 and "no play on the board" in str(data["error"])


@pytest.mark.parametrize(
    ("name", "body", "status", "needle"),
    [
        ("roll", {}, 400, "dice must be two numbers"),
        ("roll", {"dice": [7, 1]}, 400, "a die must be 1 to 6"),
        ("roll", {"dice": [0, 1]}, 400, "a die must be 1 to 6"),
        ("roll", {"dice": [True, 1]}, 400, "whole number"),
        ("roll", {"dice": ["6", "5"]}, 400, "whole number"),
        ("roll", {"dice": [6, 5, 4]}, 400, "two numbers"),
        ("roll", {"dice": [6.0, 5]}, 400, "whole number"),
        ("roll", {"dice": [6, 5], "extra": 1}, 400, "unknown field(s) extra"),
        ("roll", [6, 5], 400, "must be a JSON object"),
        ("undo", {"please": True}, 400, "unknown field(s) please"),
        ("correct", {}, 400, "correct needs a position"),
        ("correct", {"position": [1, 2]}, 400, "position JSON object"),
        ("correct", {"position": {"points": [0] * 23}}, 400, "24 points"),
        ("correct", {"position": {"points": [15] * 24}}, 400, "checkers"),
        ("correct", {"position": {"variant": "long", "points": [0] * 24}}, 400, "this game is short"),
        ("correct", {"position": {"points": [0] * 24, "turn": "green"}}, 400, "position:"),
        ("new-match", {"length": 100}, 400, "length must be 0 to 99"),
        ("new-match", {"length": "5"}, 400, "whole number"),
        ("new-match", {"variant": "chess"}, 400, "chess"),
        ("new-match", {"white": "x" * 61}, 400, "longer than 60"),
        ("new-match", {"white": "a\nb"}, 400, "control characters"),
        ("new-match", {"options": [1]}, 400, "options must be an object"),
        ("new-match", {"options": {"cube": {"deep": 1}}}, 400, "plain value"),
        ("new-match", {"options": {"no_such_option": 1}}, 400, "no_such_option"),
        ("double", {"by": "green"}, 400, "by must be one of white, black"),
        ("resign", {}, 400, "resign needs by"),
        ("resign", {"by": "white", "multiplier": 4}, 400, "multiplier must be 1 to 3"),
        ("fly", {}, 404, "unknown command 'fly'"),
        ("ROLL", {}, 404, "unknown command"),
    ],
)
def test_malformed_commands_get_a_clear_4xx_and_the_session_goes_on(
    client: FlaskClient, referee: Referee, name: str, body: object, status: int, needle: str
) -> None:
    before = referee.state()
    got, data = command(client, name, body)
    assert got == status
    assert needle in str(data["error"]) and data["status"] == status
    after = referee.state()
    assert after["version"] == before["version"] and after["match"] == before["match"]
    assert command(client, "roll", {"dice": [3, 1]})[0] == 200  # still working


def test_bodies_that_are_not_json_objects(client: FlaskClient) -> None:
    headers = bearer()
    r = client.post("/api/command/roll", data="dice=6,5", headers=headers, content_type="text/plain")
    assert r.status_code == 415 and "send JSON" in r.get_json()["error"]
    r = client.post("/api/command/roll", data="{not json", headers=headers, content_type="application/json")
    assert r.status_code == 400 and r.get_json()["error"] == "the body is not valid JSON"
    r = client.post("/api/command/roll", data="x" * 70_000, headers=headers, content_type="application/json")
    assert r.status_code == 413 and r.get_json()["error"] == "the request body is too large"
    r = client.get("/api/command/roll")
    assert r.status_code == 405 and r.is_json
    r = client.get("/api/nothing-here")
    assert r.status_code == 404 and r.get_json()["error"] == "no such resource: /api/nothing-here"


def test_new_match_switches_the_variant(client: FlaskClient, referee: Referee) -> None:
    status, _ = command(client, "new-match", {"variant": "long", "length": 3, "white": "Ann", "black": "Bo"})
    assert status == 200
    state = client.get("/api/state").get_json()
    assert state["match"]["variant"] == "long" and state["match"]["length"] == 3
    assert state["position"]["points"][23] == 15 and state["position"]["points"][11] == -15


def test_an_illegal_play_is_flagged_then_rejected(client: FlaskClient) -> None:
    command(client, "new-match", {"variant": "long"})
    command(client, "roll", {"dice": [6, 5]})
    start = Position.initial("long")
    status, data = command(client, "correct", {"position": start.apply("24/18 24/19").to_json()})
    assert status == 200 and data["legal"] is False and "head" in str(data["reason"])
    state = client.get("/api/state").get_json()
    alert = next(a for a in state["alerts"] if a["code"] == ILLEGAL_PLAY)
    assert alert["severity"] == "error" and alert["points"]
    assert state["turn"]["status"] == "illegal"
    status, data = command(client, "reject")
    assert status == 200 and data["rejected"] is True
    state = client.get("/api/state").get_json()
    assert state["turn"]["status"] == "waiting" and not state["alerts"]


def test_an_illegal_play_can_be_accepted_under_the_accept_rule(client: FlaskClient) -> None:
    command(client, "new-match", {"variant": "long", "options": {"illegal_play": "accept"}})
    command(client, "roll", {"dice": [6, 5]})
    command(client, "correct", {"position": Position.initial("long").apply("24/18 24/19").to_json()})
    status, _ = command(client, "accept")
    assert status == 200
    moves = client.get("/api/state").get_json()["moves"]
    assert moves[0]["flags"] == ["accepted", "corrected", "illegal"]


def test_double_and_take(client: FlaskClient) -> None:
    command(client, "new-match", {"length": 5, "options": {"opening": "rethrow"}})
    command(client, "roll", {"dice": [5, 2]})  # white wins the opening and throws anew: it may double first
    status, data = command(client, "double", {"by": "black"})
    assert status == 409 and "own turn" in str(data["error"])
    assert command(client, "double")[0] == 200
    state = client.get("/api/state").get_json()
    assert state["cube"] == {"value": 1, "owner": None, "offered_by": "white"}
    assert command(client, "double")[0] == 409  # offered already
    assert command(client, "take")[0] == 200
    state = client.get("/api/state").get_json()
    assert state["cube"] == {"value": 2, "owner": "black", "offered_by": None}
    status, data = command(client, "double")
    assert status == 409 and "does not own the cube" in str(data["error"])


def test_a_dropped_double_ends_the_game(client: FlaskClient) -> None:
    command(client, "new-match", {"length": 5, "options": {"opening": "rethrow"}})
    command(client, "roll", {"dice": [5, 2]})
    command(client, "double")
    assert command(client, "drop")[0] == 200
    state = client.get("/api/state").get_json()
    assert state["phase"] == "game-over" and state["result"]["winner"] == "white"
    assert state["match"]["score"]["white"] == 1


def test_resign_ends_the_game(client: FlaskClient) -> None:
    command(client, "roll", {"dice": [3, 1]})
    status, _ = command(client, "resign", {"by": "black", "multiplier": 2})
    assert status == 200
    state = client.get("/api/state").get_json()
    assert state["phase"] == "game-over" and state["result"]["winner"] == "white"
    assert state["match"]["score"]["white"] == 2


# ================================================================================ modes and hints
def test_referee_mode_hides_legal_plays_and_hints(referee: Referee) -> None:
    hints = FakeHints()
    app = create_app(Services(referee, hints=hints, settings=Settings(mode="referee", token=TOKEN)))
    try:
        client = app.test_client()
        referee.on_roll((3, 1), "manual")
        state = client.get("/api/state").get_json()
        assert state["mode"] == "referee" and state["legal"] == [] and state["hint"] is None
        assert hints.engines == {}  # never asked
        r = client.post("/api/mode", json={"mode": "training"}, headers=bearer())
        assert r.status_code == 200 and r.get_json()["mode"] == "training"
        dash = dashboard_of(app)
        assert client.get("/api/state").get_json()["hint"] == {"status": "pending"}
        assert dash.hints is not None and dash.hints.wait_idle(10)
        state = client.get("/api/state").get_json()
        hint = state["hint"]
        assert hint["status"] == "ready" and hint["engine"] == "fake 0-ply"
        assert {p["play"] for p in hint["plays"]} <= {p["play"] for p in state["legal"]}
        assert hint["plays"][0]["loss"] == 0
        r = client.post("/api/mode", json={"mode": "tournament"}, headers=bearer())
        assert r.status_code == 400 and "mode must be one of referee, training" in r.get_json()["error"]
        assert client.post("/api/mode", json={"mode": "referee"}).status_code == 401
    finally:
        close_app(app)


def test_a_failing_hint_engine_is_reported_not_fatal(referee: Referee) -> None:
    app = create_app(
        Services(referee, hints=FakeHints(fail=True), settings=Settings(mode="training", token=TOKEN))
    )
    try:
        client = app.test_client()
        referee.on_roll((6, 5), "manual")
        client.get("/api/state")
        worker = dashboard_of(app).hints
        assert worker is not None and worker.wait_idle(10)
        hint = client.get("/api/state").get_json()["hint"]
        assert hint["status"] == "error" and "weights are missing" in hint["error"]
        assert (
            command(client, "correct", {"position": Position.initial("short").apply("24/13").to_json()})[0]
            == 200
        )
    finally:
        close_app(app)


def test_hints_are_asked_once_per_roll_and_cached() -> None:
    gate = threading.Event()
    hints = FakeHints(gate)
    referee = make_referee("long")
    app = create_app(Services(referee, hints=hints, settings=Settings(mode="training", token=TOKEN)))
    try:
        dash = dashboard_of(app)
        referee.on_roll((6, 5), "manual")
        assert dash.snapshot()["hint"] == {"status": "pending"}
        assert dash.snapshot()["hint"] == {"status": "pending"}
        gate.set()
        assert dash.hints is not None and dash.hints.wait_idle(10)
        assert dash.snapshot()["hint"]["plays"][0]["play"] == "24/13"
        dash.snapshot()
        assert len(hints.engines["long"].calls) == 1
    finally:
        close_app(app)


def test_a_referee_of_its_own_when_no_services_are_given() -> None:
    app = create_app()
    try:
        data = app.test_client().get("/api/state").get_json()
        assert data["match"]["variant"] == "short" and data["mode"] == "referee"
    finally:
        close_app(app)


def test_controls_via_a_session_unlocked_by_the_link(
    app: Flask, controls: Controls, referee: Referee
) -> None:
    r = controls.post("/api/command/roll", {"dice": [5, 2]})
    assert r.status_code == 200
    assert referee.state()["dice"]["last"] == [5, 2]
    assert TOKEN not in controls.client.get("/").get_data(as_text=True)  # the page never shows it


def test_hints_from_the_real_engine() -> None:
    from nardy.hints.engine import engine_for

    referee = make_referee("short")
    app = create_app(
        Services(
            referee,
            hints=lambda variant: engine_for(variant, prefer="own"),
            settings=Settings(mode="training", token=TOKEN),
        )
    )
    try:
        dash = dashboard_of(app)
        referee.on_roll((3, 1), "manual")
        assert dash.snapshot()["hint"]["status"] == "pending"
        assert dash.hints is not None and dash.hints.wait_idle(30)
        hint = dash.snapshot()["hint"]
        assert hint["status"] == "ready" and hint["engine"].startswith("own short")
        assert hint["plays"][0]["play"] == "8/5 6/5" and hint["plays"][0]["loss"] == 0
        assert all(p["equity"] is not None for p in hint["plays"])
    finally:
        close_app(app)
