"""Fixtures: a referee with a manual clock, the app over it, clients with and without the token,
and (for the browser tests) a real server on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from nardy.referee.events import EventBus
from nardy.referee.match import MatchInfo
from nardy.referee.reading import BoardReading
from nardy.referee.recorder import Recorder
from nardy.referee.session import Referee
from nardy.referee.store import MatchStore
from nardy.rules import Position
from nardy.web.app import ServerHandle, close_app, create_app, serve_in_thread
from nardy.web.services import Services, Settings

TOKEN = "test-token-0123456789"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class Table:
    """Plays the camera and the dice for a referee."""

    def __init__(self, referee: Referee, clock: Clock) -> None:
        self.ref = referee
        self.clock = clock

    def show(self, position: Position, frames: int = 10) -> None:
        """The board shows ``position``, still for 2 s: long enough for an alert to settle."""
        reading = BoardReading.certain(position, 0.97)
        for _ in range(frames):
            self.clock.t += 0.2
            self.ref.on_reading(reading)

    def roll(self, a: int, b: int, source: str = "e-dice") -> None:
        self.clock.t += 0.5
        self.ref.on_roll((a, b), source)


BLUNDER = "8/7 8/5"
"""White's opening 3-1 in the recorded blunder: 8/5 6/5 is best; this gives up about 0.39 points a
game with GNU Backgammon and with our own network."""
REPLY = "24/18* 13/8"
"""Black's 6-5 answer: the best play, or within 0.04 of it, for both engines."""


def record_a_blunder(referee: Referee) -> None:
    """White's blunder and black's reply, both standing (three throws: two turns recorded)."""
    start = Position.initial("short")
    referee.on_roll((3, 1), "e-dice")
    referee.command("correct", position=start.apply(BLUNDER).to_json())
    referee.on_roll((6, 5), "e-dice")
    referee.command("correct", position=start.apply(BLUNDER).apply(REPLY).to_json())
    referee.on_roll((4, 3), "e-dice")


def make_referee(variant: str = "short", clock: Clock | None = None, **info: object) -> Referee:
    clock = clock or Clock()
    return Referee(MatchInfo(variant=variant, **info), bus=EventBus(clock), clock=clock)  # type: ignore[arg-type]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[MatchStore]:
    """A real match store (an SQLite file) in the test's folder."""
    store = MatchStore.open(tmp_path / "matches.db")
    yield store
    store.close()


@contextmanager
def recording(store: MatchStore, play: Callable[[Referee], None]) -> Iterator[Referee]:
    """A 3-point short match between Anna and Boris, recorded into ``store`` while ``play`` runs."""
    referee = make_referee("short", length=3, white="Anna", black="Boris")
    recorder = Recorder(store, referee)
    try:
        play(referee)
        yield referee
    finally:
        recorder.close()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def referee(clock: Clock) -> Referee:
    return make_referee("short", clock, length=5, white="Anna", black="Boris")


@pytest.fixture
def table(referee: Referee, clock: Clock) -> Table:
    return Table(referee, clock)


@pytest.fixture
def settings() -> Settings:
    return Settings(mode="training", token=TOKEN)


@pytest.fixture
def services(referee: Referee, settings: Settings) -> Services:
    return Services(referee, settings=settings)


@pytest.fixture
def app(services: Services) -> Iterator[Flask]:
    app = create_app(services, {"TESTING": True})
    yield app
    close_app(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def bearer() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


class Controls:
    """A browser-like session unlocked by the start-up link: cookie + CSRF header."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        response = client.get(f"/?token={TOKEN}")
        assert response.status_code == 303
        self.csrf = client.get("/api/session").get_json()["csrf"]

    def post(self, path: str, body: object = None, **headers: str) -> TestResponse:
        return self.client.post(
            path, json={} if body is None else body, headers={"X-CSRF-Token": self.csrf, **headers}
        )


@pytest.fixture
def controls(client: FlaskClient) -> Controls:
    return Controls(client)


@pytest.fixture
def server(app: Flask) -> Iterator[ServerHandle]:
    handle = serve_in_thread(app, "127.0.0.1", 0)
    yield handle
    handle.stop()
