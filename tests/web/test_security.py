"""The access token, CSRF protection and the data folder boundary."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from nardy.referee.session import Referee
from nardy.web.app import close_app, create_app
from nardy.web.services import Services, Settings
from tests.web.conftest import TOKEN, Controls, bearer
from tests.web.fakes import FakeArchive, FakeCalibration

CONTROLS = [
    ("/api/command/roll", {"dice": [3, 1]}),
    ("/api/command/new-game", {}),
    ("/api/mode", {"mode": "referee"}),
    ("/api/calibration/snapshot", {}),
    ("/api/calibration/use", {"name": "x"}),
]


@pytest.mark.parametrize(("path", "body"), CONTROLS)
def test_every_control_needs_the_token(
    client: FlaskClient, referee: Referee, path: str, body: object
) -> None:
    before = referee.bus.seq
    r = client.post(path, json=body)
    assert r.status_code == 401 and "access token" in r.get_json()["error"]
    r = client.post(path, json=body, headers={"Authorization": "Bearer not-the-token"})
    assert r.status_code == 401
    assert referee.bus.seq == before


def test_the_link_unlocks_the_session_and_drops_the_token_from_the_address(client: FlaskClient) -> None:
    r = client.get(f"/?token={TOKEN}&x=1")
    assert r.status_code == 303 and r.headers["Location"] == "/?x=1"
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    page = client.get("/").get_data(as_text=True)
    assert 'data-authorized="yes"' in page


def test_a_wrong_link_token_leaves_the_controls_locked_and_says_so(client: FlaskClient) -> None:
    r = client.get("/calibrate?token=guess")
    assert r.status_code == 303 and r.headers["Location"] == "/calibrate"
    page = client.get("/calibrate").get_data(as_text=True)
    assert 'data-authorized="no"' in page and page_config(page)["tokenRejected"] is True
    assert page_config(client.get("/calibrate").get_data(as_text=True))["tokenRejected"] is False  # said once


def page_config(html: str) -> dict[str, Any]:
    text = html.split('id="page-config">', 1)[1].split("</script>", 1)[0]
    data: dict[str, Any] = json.loads(text)
    return data


def test_session_posts_need_the_csrf_token(controls: Controls, referee: Referee) -> None:
    client = controls.client
    r = client.post("/api/command/roll", json={"dice": [3, 1]})
    assert r.status_code == 403 and "CSRF" in r.get_json()["error"]
    r = client.post("/api/command/roll", json={"dice": [3, 1]}, headers={"X-CSRF-Token": "forged"})
    assert r.status_code == 403
    assert referee.turn is None
    r = controls.post("/api/command/roll", {"dice": [3, 1]})
    assert r.status_code == 200


def test_session_posts_from_another_origin_are_refused(controls: Controls) -> None:
    r = controls.post("/api/command/roll", {"dice": [3, 1]}, Origin="http://evil.example")
    assert r.status_code == 403 and "another site" in r.get_json()["error"]
    r = controls.post("/api/command/roll", {"dice": [3, 1]}, Origin="http://localhost")
    assert r.status_code == 200


def test_a_form_post_cannot_drive_the_referee(controls: Controls) -> None:
    # what a cross-site <form> could send: no JSON, no CSRF header
    r = controls.client.post("/api/command/roll", data={"dice": "6,5"})
    assert r.status_code in (403, 415)


def test_login_and_logout(client: FlaskClient) -> None:
    csrf = client.get("/api/session").get_json()["csrf"]
    headers = {"X-CSRF-Token": csrf}
    r = client.post("/api/login", json={"token": "nope"}, headers=headers)
    assert r.status_code == 401 and r.get_json()["error"] == "that is not the access token"
    r = client.post("/api/login", json={"token": 12}, headers=headers)
    assert r.status_code == 401
    r = client.post("/api/login", json={"token": TOKEN, "user": "x"}, headers=headers)
    assert r.status_code == 400
    assert client.post("/api/login", json={"token": TOKEN}).status_code == 403  # CSRF header missing
    r = client.post("/api/login", json={"token": TOKEN}, headers=headers)
    assert r.status_code == 200
    assert client.get("/api/session").get_json()["authorized"] is True
    assert client.post("/api/command/new-game", json={}, headers=headers).status_code == 200
    assert client.post("/api/logout", json={}, headers=headers).status_code == 200
    assert client.get("/api/session").get_json()["authorized"] is False
    assert client.post("/api/command/new-game", json={}, headers=headers).status_code == 401


def test_a_session_from_another_server_start_does_not_unlock(referee: Referee) -> None:
    """Sessions are signed with a per-start secret: yesterday's cookie is worth nothing today."""
    first = create_app(Services(referee, settings=Settings(token=TOKEN)))
    second = create_app(Services(referee, settings=Settings(token=TOKEN)))
    try:
        a = first.test_client()
        a.get(f"/?token={TOKEN}")
        cookie = a.get_cookie("nardy_session")
        assert cookie is not None
        b = second.test_client()
        b.set_cookie("nardy_session", cookie.value)
        assert b.get("/api/session").get_json()["authorized"] is False
    finally:
        close_app(first)
        close_app(second)


def test_viewers_can_read_everything_that_is_not_a_control(client: FlaskClient) -> None:
    for path in (
        "/",
        "/calibrate",
        "/history",
        "/api/state",
        "/api/session",
        "/api/matches",
        "/api/calibration",
    ):
        assert client.get(path).status_code == 200, path


def test_the_token_is_checked_for_length() -> None:
    with pytest.raises(ValueError, match="at least 8"):
        Settings(token="short")
    assert len(Settings().token) >= 20 and Settings().token != Settings().token


# ================================================================================ the data folder
def _archive_app(referee: Referee, data_dir: Path | None, file_path: Path) -> tuple[FlaskClient, FakeArchive]:
    archive = FakeArchive(file_path)
    archive.record("m1", referee)
    app = create_app(Services(referee, archive=archive, settings=Settings(token=TOKEN, data_dir=data_dir)))
    return app.test_client(), archive


def test_downloads_come_from_inside_the_data_folder(tmp_path: Path, referee: Referee) -> None:
    data = tmp_path / "data"
    (data / "exports").mkdir(parents=True)
    inside = data / "exports" / "m1.txt"
    inside.write_text("the record\n")
    client, _ = _archive_app(referee, data, inside)
    r = client.get("/api/matches/m1/export/file")
    assert r.status_code == 200 and r.data == b"the record\n"
    assert r.headers["Content-Disposition"].startswith("attachment")
    r.close()
    close_app(client.application)


@pytest.mark.parametrize("where", ["outside", "symlink", "relative", "missing", "no-data-dir"])
def test_downloads_never_reach_outside_the_data_folder(tmp_path: Path, referee: Referee, where: str) -> None:
    data = tmp_path / "data"
    data.mkdir()
    secret = tmp_path / "secret.txt"
    secret.write_text("private\n")
    target: Path = secret
    data_dir: Path | None = data
    if where == "symlink":
        target = data / "innocent.txt"
        os.symlink(secret, target)
    elif where == "relative":
        target = Path("../secret.txt")
    elif where == "missing":
        target = data / "gone.txt"
    elif where == "no-data-dir":
        data_dir = None
    client, _ = _archive_app(referee, data_dir, target)
    r = client.get("/api/matches/m1/export/file")
    assert r.status_code in (403, 404) and b"private" not in r.data
    assert r.is_json
    close_app(client.application)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/matches/..", 400),
        ("/api/matches/...x", 400),
        ("/api/matches/.hidden", 400),
        ("/api/matches/m1/export/..", 400),
        ("/api/matches/m1/export/JSON", 400),
        ("/api/matches/..%2F..%2Fetc%2Fpasswd/export/json", 404),
        ("/api/matches/m1%00/export/json", 400),
        ("/api/matches/nope/export/json", 404),
        ("/api/matches/m1/export/pdf", 404),
    ],
)
def test_match_ids_and_formats_are_checked(tmp_path: Path, referee: Referee, path: str, status: int) -> None:
    client, archive = _archive_app(referee, tmp_path, tmp_path / "x")
    r = client.get(path)
    assert r.status_code == status and r.is_json
    assert archive.exports == []
    close_app(client.application)


def test_profile_names_cannot_be_paths(client: FlaskClient, referee: Referee) -> None:
    calibration = FakeCalibration()
    app = create_app(Services(referee, calibration=calibration, settings=Settings(token=TOKEN)))
    try:
        c = app.test_client()
        c.post("/api/calibration/snapshot", json={}, headers=bearer())
        corners = [[140, 70], [520, 90], [540, 340], [110, 320]]
        for bad in ("../evil", ".hidden", "a/b", "a\\b", "", "x" * 65, 5):
            r = c.post("/api/calibration/save", json={"name": bad, "corners": corners}, headers=bearer())
            assert r.status_code == 400, bad
        assert calibration.saved == {}
    finally:
        close_app(app)
