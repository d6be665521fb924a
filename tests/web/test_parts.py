"""The optional parts: camera pictures, calibration steps and the match history, present or not."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator

import pytest
from flask import Flask
from flask.testing import FlaskClient

from nardy.referee.session import Referee
from nardy.rules import Position
from nardy.web.app import close_app, create_app
from nardy.web.services import Services, Settings
from tests.web.conftest import TOKEN, bearer
from tests.web.fakes import BOARD_CORNERS, FakeArchive, FakeCalibration, FakeCamera

CORNERS = [list(p) for p in BOARD_CORNERS]


@pytest.fixture
def camera() -> FakeCamera:
    return FakeCamera()


@pytest.fixture
def calibration() -> FakeCalibration:
    return FakeCalibration()


@pytest.fixture
def archive(referee: Referee) -> FakeArchive:
    archive = FakeArchive()
    referee.on_roll((3, 1), "manual")
    referee.command("correct", position=Position.initial("short").apply("8/5 6/5").to_json())
    referee.on_roll((6, 4), "e-dice")
    archive.record("2026-03-01-anna-boris", referee)
    return archive


@pytest.fixture
def full(
    referee: Referee, camera: FakeCamera, calibration: FakeCalibration, archive: FakeArchive
) -> Iterator[Flask]:
    app = create_app(
        Services(
            referee,
            camera=camera,
            calibration=calibration,
            archive=archive,
            settings=Settings(token=TOKEN, mode="training"),
        )
    )
    yield app
    close_app(app)


@pytest.fixture
def c(full: Flask) -> FlaskClient:
    return full.test_client()


def post(client: FlaskClient, path: str, body: object = None) -> tuple[int, dict[str, object]]:
    r = client.post(path, json={} if body is None else body, headers=bearer())
    return r.status_code, r.get_json()


# ================================================================================ missing parts
def test_missing_parts_are_reported_not_crashed_on(client: FlaskClient) -> None:
    state = client.get("/api/state").get_json()
    assert state["services"] == {"camera": False, "archive": False, "hints": False, "calibration": False}
    r = client.get("/api/camera/frame.jpg")
    assert r.status_code == 404 and r.get_json()["error"] == "no camera in this session"
    assert client.get("/api/calibration").get_json() == {"available": False, "profiles": [], "current": None}
    r = client.post("/api/calibration/snapshot", json={}, headers=bearer())
    assert r.status_code == 404 and "no calibration" in r.get_json()["error"]
    assert client.get("/api/matches").get_json() == {"available": False, "matches": [], "formats": []}
    r = client.get("/api/matches/x")
    assert r.status_code == 404 and r.get_json()["error"] == "no match store in this session"
    page = client.get("/").get_data(as_text=True)
    assert "No camera in this session" in page


# ================================================================================ camera
def test_camera_pictures_with_etags(c: FlaskClient, camera: FakeCamera) -> None:
    r = c.get("/api/camera/overlay.jpg")
    assert r.status_code == 503 and r.get_json()["error"] == "no camera picture yet"
    frame = camera.push()
    r = c.get("/api/camera/overlay.jpg")
    assert r.status_code == 200 and r.mimetype == "image/jpeg" and r.data == frame.overlay
    assert r.headers["X-Frame-Seq"] == "1"
    etag = r.headers["ETag"]
    r2 = c.get("/api/camera/overlay.jpg", headers={"If-None-Match": etag})
    assert r2.status_code == 304 and r2.data == b""
    r3 = c.get("/api/camera/frame.jpg", headers={"If-None-Match": etag})
    assert r3.status_code == 200 and r3.data == frame.jpeg
    camera.push()
    r4 = c.get("/api/camera/overlay.jpg", headers={"If-None-Match": etag})
    assert r4.status_code == 200 and r4.headers["X-Frame-Seq"] == "2"
    assert c.get("/api/camera/other.jpg").status_code == 404
    assert c.get("/api/state").get_json()["camera"]["present"] is True


# ================================================================================ calibration
def test_calibration_steps(c: FlaskClient, calibration: FakeCalibration, referee: Referee) -> None:
    assert c.get("/api/calibration").get_json() == {"available": True, "profiles": [], "current": None}
    assert post(c, "/api/calibration/auto-corners")[0] == 409  # no snapshot yet
    assert post(c, "/api/calibration/preview", {"corners": CORNERS})[0] == 409
    status, snap = post(c, "/api/calibration/snapshot")
    assert status == 200 and (snap["width"], snap["height"]) == (640, 400)
    image = str(snap["image"])
    assert image.startswith("data:image/jpeg;base64,")
    assert base64.b64decode(image.split(",", 1)[1])[:2] == b"\xff\xd8"
    status, auto = post(c, "/api/calibration/auto-corners")
    assert status == 200 and auto["corners"] == CORNERS and auto["confidence"] == 0.93
    status, preview = post(c, "/api/calibration/preview", {"corners": CORNERS})
    assert status == 200 and (preview["width"], preview["height"]) == (480, 320)
    checkers = preview["checkers"]
    assert isinstance(checkers, list) and len(checkers) == 10
    assert all(0 <= ch["x"] <= 480 and 0 <= ch["y"] <= 320 for ch in checkers)
    assert calibration.corners_seen[-1] == tuple(tuple(float(v) for v in p) for p in CORNERS)
    status, colours = post(c, "/api/calibration/colours", {"corners": CORNERS})
    assert status == 200 and colours["colours"] == {"light": "#e6e6e6", "dark": "#141414", "checkers": 30}
    version = c.get("/api/state").get_json()["version"]
    status, saved = post(c, "/api/calibration/save", {"name": "club table 1", "corners": CORNERS})
    assert status == 200 and saved["saved"] == "profiles/club table 1.json"
    assert c.get("/api/calibration").get_json()["profiles"] == ["club table 1"]
    assert c.get("/api/state").get_json()["profile"] == "club table 1"
    assert referee.bus.seq == version  # calibration is not a referee event
    assert post(c, "/api/calibration/use", {"name": "other"})[0] == 404
    assert post(c, "/api/calibration/use", {"name": "club table 1"})[0] == 200


def test_calibration_errors_are_explained(full: Flask, c: FlaskClient, calibration: FakeCalibration) -> None:
    post(c, "/api/calibration/snapshot")
    calibration.start_position = False
    status, data = post(c, "/api/calibration/colours", {"corners": CORNERS})
    assert status == 422 and "not in the start position" in str(data["error"])
    calibration.finds_board = False
    status, data = post(c, "/api/calibration/auto-corners")
    assert status == 422 and "click its four corners" in str(data["error"])


@pytest.mark.parametrize(
    ("corners", "needle"),
    [
        (CORNERS[:3], "four [x, y] points"),
        ([*CORNERS[:3], [1, 2, 3]], "corner 4 must be [x, y]"),
        ([*CORNERS[:3], ["a", 2]], "two finite numbers"),
        ([*CORNERS[:3], [True, 2]], "two finite numbers"),
        ([*CORNERS[:3], [5000, 2]], "far outside"),
        (list(reversed(CORNERS)), "clockwise"),
        ([CORNERS[0], CORNERS[2], CORNERS[1], CORNERS[3]], "clockwise"),  # crossed
        ([[10, 10], [12, 10], [12, 12], [10, 12]], "clockwise"),  # no real area
        ("TL TR BR BL", "four [x, y] points"),
    ],
)
def test_corners_are_validated(
    c: FlaskClient, calibration: FakeCalibration, corners: object, needle: str
) -> None:
    post(c, "/api/calibration/snapshot")
    status, data = post(c, "/api/calibration/preview", {"corners": corners})
    assert status == 400 and needle in str(data["error"])
    assert calibration.corners_seen == []


def test_non_finite_corners_are_refused(c: FlaskClient, calibration: FakeCalibration) -> None:
    post(c, "/api/calibration/snapshot")
    body = json.dumps({"corners": [*CORNERS[:3], [float("nan"), 2]]})
    r = c.post("/api/calibration/preview", data=body, content_type="application/json", headers=bearer())
    assert r.status_code == 400 and calibration.corners_seen == []


# ================================================================================ history
def test_history_lists_loads_and_exports(c: FlaskClient, archive: FakeArchive) -> None:
    data = c.get("/api/matches").get_json()
    assert data["available"] is True and data["formats"] == ["mat", "sgf", "json", "sheet", "file"]
    (row,) = data["matches"]
    assert row["id"] == "2026-03-01-anna-boris" and row["white"] == "Anna" and row["games"] == 1
    match = c.get(f"/api/matches/{row['id']}").get_json()
    moves = match["games"][0]["moves"]
    assert [m["play"] for m in moves] == ["8/5 6/5"] and moves[0]["before"]["points"][5] == 5
    for fmt in ("mat", "sgf", "json", "sheet"):
        r = c.get(f"/api/matches/{row['id']}/export/{fmt}")
        assert r.status_code == 200
        assert r.headers["Content-Disposition"] == f'attachment; filename="2026-03-01-anna-boris.{fmt}"'
    assert json.loads(c.get(f"/api/matches/{row['id']}/export/json").data)["id"] == row["id"]
    assert c.get("/api/matches/unknown").status_code == 404
