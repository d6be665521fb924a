"""The history over the real match store: what the recorder wrote is listed, shown and exported."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from nardy.referee.session import Referee
from nardy.referee.store import MatchStore
from nardy.rules import Position
from nardy.web.app import close_app, create_app
from nardy.web.archive import StoreArchive
from nardy.web.services import Services, Settings
from tests.web.conftest import TOKEN, recording


def play_a_little(referee: Referee) -> None:
    referee.on_roll((3, 1), "manual")
    referee.command("correct", position=Position.initial("short").apply("8/5 6/5").to_json())
    referee.on_roll((6, 4), "e-dice")
    referee.command("correct", position=referee.state()["legal"][0]["position"])
    referee.on_roll((2, 1), "e-dice")


@pytest.fixture
def recorded(store: MatchStore) -> Iterator[Referee]:
    with recording(store, play_a_little) as referee:
        yield referee


@pytest.fixture
def hc(store: MatchStore, recorded: Referee, tmp_path: Path) -> Iterator[FlaskClient]:
    app = create_app(
        Services(recorded, archive=StoreArchive(store), settings=Settings(token=TOKEN, data_dir=tmp_path))
    )
    yield app.test_client()
    close_app(app)


def test_recorded_matches_are_listed_and_loaded(hc: FlaskClient) -> None:
    data = hc.get("/api/matches").get_json()
    assert data["formats"] == ["mat", "sgf", "json", "sheet", "pdf"]
    (row,) = data["matches"]
    assert row["id"] == "1" and row["white"] == "Anna" and row["games"] == 1 and row["turns"] == 2
    match = hc.get("/api/matches/1").get_json()
    moves = match["games"][0]["moves"]
    assert [m["mover"] for m in moves] == ["white", "black"]
    assert moves[0]["play"] == "8/5 6/5" and moves[0]["roll"] == [3, 1] and moves[0]["source"] == "manual"
    assert moves[1]["before"] == moves[0]["after"]
    assert match["match"]["length"] == 3


@pytest.mark.parametrize(
    ("fmt", "mimetype", "start"),
    [
        ("mat", "text/plain", b'; [Player 1 "Anna"]'),
        ("sgf", "application/x-go-sgf", b"(;"),
        ("json", "application/json", b"{"),
        ("sheet", "text/html", b"<!"),
        ("pdf", "application/pdf", b"%PDF"),
    ],
)
def test_every_export_downloads(hc: FlaskClient, fmt: str, mimetype: str, start: bytes) -> None:
    r = hc.get(f"/api/matches/1/export/{fmt}")
    assert r.status_code == 200 and r.mimetype == mimetype
    assert r.headers["Content-Disposition"].startswith('attachment; filename="match-1.')
    assert r.data.startswith(start) and len(r.data) > 50
    if fmt == "json":
        assert json.loads(r.data)["white"] == "Anna"
    if fmt == "mat":
        assert b"Anna" in r.data and b"8/5 6/5" in r.data


@pytest.mark.parametrize("match_id", ["2", "abc", "0x1", "1" * 20])
def test_unknown_matches(hc: FlaskClient, match_id: str) -> None:
    assert hc.get(f"/api/matches/{match_id}").status_code == 404
    assert hc.get(f"/api/matches/{match_id}/export/json").status_code == 404
