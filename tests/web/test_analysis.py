"""The history page's analysis API over the real match store, with a recorded blunder.

White opens 3-1 with 8/7 8/5 (8/5 6/5 is best; this gives up about 0.39 points a game with
either engine), and black answers 6-5 with 24/18* 13/8 (best, or within 0.04 of it). Both
archives are checked: the dashboard's (``nardy.web.archive``) and the live session's
(``nardy.cli._live``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from flask.testing import FlaskClient

from nardy.hints import engine_for
from nardy.referee.session import Referee
from nardy.referee.store import MatchStore
from nardy.rules import Position
from nardy.web.app import close_app, create_app
from nardy.web.archive import StoreArchive
from nardy.web.services import MatchAnalyser, MatchArchive, Services, Settings
from tests.web.conftest import BLUNDER, REPLY, TOKEN, record_a_blunder, recording
from tests.web.fakes import FakeArchive

ENTRY = "bar/21 8/5"


class OwnEngines:
    """Our own network for every analysis (fast, deterministic), counting the analyses made."""

    def __init__(self) -> None:
        self.made = 0

    def __call__(self, variant: Any) -> Any:
        self.made += 1
        return engine_for(variant, prefer="own")


@pytest.fixture
def recorded(store: MatchStore) -> Iterator[Referee]:
    with recording(store, record_a_blunder) as referee:
        yield referee


@pytest.fixture
def engines() -> OwnEngines:
    return OwnEngines()


@pytest.fixture(params=[StoreArchive], ids=["web-archive"])
def archive(request: pytest.FixtureRequest, store: MatchStore, engines: OwnEngines) -> MatchArchive:
    made: MatchArchive = request.param(store, engines)
    return made


def client_for(referee: Referee, archive: object, data_dir: Path) -> Iterator[FlaskClient]:
    app = create_app(
        Services(referee, archive=archive, settings=Settings(token=TOKEN, data_dir=data_dir))  # type: ignore[arg-type]
    )
    yield app.test_client()
    close_app(app)


@pytest.fixture
def hc(recorded: Referee, archive: MatchArchive, tmp_path: Path) -> Iterator[FlaskClient]:
    yield from client_for(recorded, archive, tmp_path)


def test_the_blunder_is_marked(hc: FlaskClient, archive: MatchArchive) -> None:
    assert isinstance(archive, MatchAnalyser)
    match = hc.get("/api/matches/1").get_json()
    assert match["analysis"] is True
    r = hc.get("/api/matches/1/analysis")
    assert r.status_code == 200
    data = r.get_json()
    assert data["id"] == "1" and data["engine"] == "own short 1-ply"
    assert data["thresholds"] == {"doubtful": 0.04, "error": 0.08, "blunder": 0.16}
    (game,) = data["games"]
    assert game["number"] == 1
    opening, reply = game["turns"]
    moves = match["games"][0]["moves"]
    assert [t["number"] for t in game["turns"]] == [m["number"] for m in moves]
    assert opening["mover"] == "white" and opening["mark"] == "blunder" and opening["loss"] > 0.3
    assert opening["best"] == "8/5 6/5" and opening["rank"] > 1 and opening["choices"] > 10
    assert reply["mover"] == "black" and reply["mark"] == "" and reply["loss"] < 0.04
    assert data["summary"]["white"]["marks"] == {"blunder": 1}
    assert data["summary"]["white"]["total_loss"] == opening["loss"]
    assert data["summary"]["black"]["marks"] == {}


def test_the_analysis_is_made_once_per_version_of_the_record(
    hc: FlaskClient, recorded: Referee, engines: OwnEngines
) -> None:
    first = hc.get("/api/matches/1/analysis").get_json()
    assert hc.get("/api/matches/1/analysis").get_json() == first
    json.loads(hc.get("/api/matches/1/export/json").data)  # the download uses the same analysis
    assert engines.made == 1
    # white's next play is recorded: the match has changed, so it is analysed again
    after = Position.initial("short").apply(BLUNDER).apply(REPLY).apply(ENTRY)
    recorded.command("correct", position=after.to_json())
    recorded.on_roll((2, 1), "e-dice")
    again = hc.get("/api/matches/1/analysis").get_json()
    assert engines.made == 2
    turns = again["games"][0]["turns"]
    assert len(turns) == 3 and turns[2]["mover"] == "white" and turns[2]["rank"] == 1
    assert turns[:2] == first["games"][0]["turns"]


def test_the_downloads_carry_the_marks(hc: FlaskClient) -> None:
    data = json.loads(hc.get("/api/matches/1/export/json").data)
    opening = data["games"][0]["actions"][0]
    assert opening["play"] == BLUNDER and opening["analysis"]["mark"] == "blunder"
    assert data["analysis"]["summary"]["white"]["marks"] == {"blunder": 1}
    sheet = hc.get("/api/matches/1/export/sheet").get_data(as_text=True)
    assert "<span class='mark blunder'" in sheet and "?? <small>" in sheet
    assert b"8/7 8/5 ??" in hc.get("/api/matches/1/export/pdf").data
    mat = hc.get("/api/matches/1/export/mat").get_data(as_text=True)
    assert "8/7 8/5" in mat and "??" not in mat


def test_a_failed_analysis_is_reported_and_the_exports_go_on(
    store: MatchStore, recorded: Referee, tmp_path: Path
) -> None:
    def broken(variant: Any) -> NoReturn:
        raise RuntimeError("the engine is broken")

    for kind in (StoreArchive,):
        for c in client_for(recorded, kind(store, broken), tmp_path):
            r = c.get("/api/matches/1/analysis")
            assert r.status_code == 503
            assert (
                r.get_json()["error"] == "no analysis of match 1: the analysis failed: the engine is broken"
            )
            data = json.loads(c.get("/api/matches/1/export/json").data)
            assert data["analysis"] == {"error": "the analysis failed: the engine is broken"}
            assert data["games"][0]["actions"][0]["analysis"] is None
            assert "None: the analysis failed" in c.get("/api/matches/1/export/sheet").get_data(as_text=True)


@pytest.mark.parametrize(("match_id", "status"), [("2", 404), ("abc", 404), ("1" * 20, 404), ("a..b", 400)])
def test_unknown_matches_have_no_analysis(hc: FlaskClient, match_id: str, status: int) -> None:
    assert hc.get(f"/api/matches/{match_id}/analysis").status_code == status


def test_an_archive_without_analysis_still_works(recorded: Referee, tmp_path: Path) -> None:
    fake = FakeArchive()
    fake.record("7", recorded)
    assert not isinstance(fake, MatchAnalyser)
    for c in client_for(recorded, fake, tmp_path):
        match = c.get("/api/matches/7").get_json()
        assert match["analysis"] is False and match["games"][0]["moves"]
        r = c.get("/api/matches/7/analysis")
        assert r.status_code == 404 and "does not analyse" in r.get_json()["error"]
