"""The JSON API: everything the pages do, for scripts too. Views are thin: check, call, serialise.

Reading (anyone): ``GET /api/state``, ``/api/session``, ``/api/camera/frame.jpg`` and
``overlay.jpg``, ``/api/calibration``, ``/api/matches``, ``/api/matches/ID``,
``/api/matches/ID/analysis`` and ``/api/matches/ID/export/FORMAT``.

Controls (the access token, see :mod:`nardy.web.security`): ``POST /api/command/NAME`` with the
command's fields as a JSON object (``roll {"dice": [6, 5]}``, ``new-game``, ``new-match {"variant",
"length", "white", "black", "options", "venue"}``, ``undo``, ``accept``, ``reject``, ``correct
{"position"}``, ``double {"by"}``, ``take``, ``drop``, ``resign {"by", "multiplier"}``), ``POST
/api/mode {"mode"}`` and ``POST /api/calibration/...``. ``POST /api/login {"token"}`` unlocks a
browser session; ``/api/logout`` locks it.

Errors: 400 malformed, 401 no token, 403 cross-site or outside the data folder, 404 unknown,
409 the referee cannot do that now (its message says why), 413 too large, 415 not JSON, 422 the
calibration step failed on this picture, 503 no camera picture or the analysis failed.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, request, send_file
from flask.typing import ResponseReturnValue

from nardy.referee.match import CubeError
from nardy.referee.session import CommandError
from nardy.web import validate as v
from nardy.web.http import ApiError, current_dashboard
from nardy.web.live import Dashboard
from nardy.web.security import (
    authorization,
    check_same_site,
    csrf_token,
    inside_data_dir,
    lock_session,
    require_token,
    unlock_session,
)
from nardy.web.services import CalibrationService, Download, MatchAnalyser, MatchArchive, Picture

bp = Blueprint("api", __name__, url_prefix="/api")


# ================================================================================ reading
@bp.get("/state")
def state() -> ResponseReturnValue:
    return jsonify(current_dashboard().snapshot())


@bp.get("/session")
def session_info() -> ResponseReturnValue:
    dash = current_dashboard()
    return jsonify(
        {
            "authorized": authorization() is not None,
            "csrf": csrf_token(),
            "mode": dash.mode,
            "services": dash.services.available(),
        }
    )


# ================================================================================ session
@bp.post("/login")
def login() -> ResponseReturnValue:
    check_same_site()
    data = v.json_body()
    v.only(data, {"token"}, "login")
    if not unlock_session(data.get("token")):
        raise ApiError(401, "that is not the access token")
    return jsonify({"ok": True, "csrf": csrf_token()})


@bp.post("/logout")
def logout() -> ResponseReturnValue:
    check_same_site()
    lock_session()
    return jsonify({"ok": True})


# ================================================================================ commands
def _no_fields(name: str) -> Callable[[dict[str, Any], Dashboard], dict[str, Any]]:
    def parse(data: dict[str, Any], dash: Dashboard) -> dict[str, Any]:
        v.only(data, set(), name)
        return {}

    return parse


def _roll(data: dict[str, Any], dash: Dashboard) -> dict[str, Any]:
    v.only(data, {"dice"}, "roll")
    return {"dice": v.dice(data.get("dice"))}


def _new_match(data: dict[str, Any], dash: Dashboard) -> dict[str, Any]:
    v.only(data, {"variant", "length", "white", "black", "options", "venue"}, "new-match")
    args: dict[str, Any] = {}
    if "variant" in data:
        args["variant"] = v.text(data["variant"], "variant", 20)
    if "length" in data:
        args["length"] = v.integer(data["length"], "length", 0, 99)
    for key, longest in (("white", 60), ("black", 60), ("venue", 120)):
        if key in data:
            args[key] = v.text(data[key], key, longest)
    if "options" in data:
        args["options"] = v.options(data["options"])
    return args


def _correct(data: dict[str, Any], dash: Dashboard) -> dict[str, Any]:
    v.only(data, {"position"}, "correct")
    if "position" not in data:
        raise ApiError(400, "correct needs a position")
    return {"position": v.position(data["position"], dash.referee.variant.name)}


def _double(data: dict[str, Any], dash: Dashboard) -> dict[str, Any]:
    v.only(data, {"by"}, "double")
    return {"by": v.side(data["by"], "by")} if data.get("by") is not None else {}


def _resign(data: dict[str, Any], dash: Dashboard) -> dict[str, Any]:
    v.only(data, {"by", "multiplier"}, "resign")
    if "by" not in data:
        raise ApiError(400, "resign needs by: the side that resigns")
    return {
        "by": v.side(data["by"], "by"),
        "multiplier": v.integer(data.get("multiplier", 1), "multiplier", 1, 3),
    }


COMMANDS: dict[str, Callable[[dict[str, Any], Dashboard], dict[str, Any]]] = {
    "roll": _roll,
    "new-game": _no_fields("new-game"),
    "new-match": _new_match,
    "undo": _no_fields("undo"),
    "accept": _no_fields("accept"),
    "reject": _no_fields("reject"),
    "correct": _correct,
    "double": _double,
    "take": _no_fields("take"),
    "drop": _no_fields("drop"),
    "resign": _resign,
}
NAME = re.compile(r"^[a-z-]{1,20}$")


@bp.post("/command/<name>")
@require_token
def command(name: str) -> ResponseReturnValue:
    dash = current_dashboard()
    parse = COMMANDS.get(name) if NAME.match(name) else None
    if parse is None:
        raise ApiError(404, f"unknown command {name[:20]!r} (known: {', '.join(sorted(COMMANDS))})")
    args = parse(v.json_body(), dash)
    referee = dash.referee
    try:
        result = referee.command(name, **args)
    except (CommandError, CubeError) as exc:
        raise ApiError(409, str(exc)) from None
    except ValueError as exc:
        raise ApiError(400, f"{name}: {exc}") from None
    return jsonify({**result, "ok": True, "version": referee.bus.seq})


@bp.post("/mode")
@require_token
def mode() -> ResponseReturnValue:
    dash = current_dashboard()
    data = v.json_body()
    v.only(data, {"mode"}, "mode")
    dash.set_mode(v.choice(data.get("mode"), "mode", ("referee", "training")))
    return jsonify({"ok": True, "mode": dash.mode})


# ================================================================================ camera
@bp.get("/camera/<kind>.jpg")
def camera(kind: str) -> ResponseReturnValue:
    if kind not in ("frame", "overlay"):
        raise ApiError(404, "the camera pictures are frame.jpg and overlay.jpg")
    source = current_dashboard().services.camera
    if source is None:
        raise ApiError(404, "no camera in this session")
    frame = source.latest_frame()
    if frame is None:
        raise ApiError(503, "no camera picture yet")
    data = frame.overlay if kind == "overlay" and frame.overlay is not None else frame.jpeg
    tag = f"{frame.seq}-{kind}"
    if request.if_none_match.contains(tag):
        response = Response(status=304)
    else:
        response = Response(data, mimetype="image/jpeg")
    response.set_etag(tag)
    response.headers["Cache-Control"] = "no-cache"
    response.headers["X-Frame-Seq"] = str(frame.seq)
    return response


# ================================================================================ calibration
def _calibration() -> CalibrationService:
    service = current_dashboard().services.calibration
    if service is None:
        raise ApiError(404, "no calibration in this session (no camera)")
    return service


def _picture(picture: Picture) -> dict[str, Any]:
    return {
        "image": "data:image/jpeg;base64," + base64.b64encode(picture.jpeg).decode("ascii"),
        "width": picture.width,
        "height": picture.height,
    }


def _calibration_step(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except RuntimeError as exc:
        raise ApiError(503, str(exc) or "no camera picture") from None
    except KeyError as exc:
        raise ApiError(404, str(exc.args[0]) if exc.args else "not found") from None
    except ValueError as exc:
        raise ApiError(422, str(exc)) from None


@bp.get("/calibration")
def calibration_status() -> ResponseReturnValue:
    service = current_dashboard().services.calibration
    if service is None:
        return jsonify({"available": False, "profiles": [], "current": None})
    return jsonify(
        {
            "available": True,
            "profiles": [str(p) for p in _calibration_step(service.profiles)],
            "current": _calibration_step(service.current_profile),
        }
    )


@bp.post("/calibration/snapshot")
@require_token
def calibration_snapshot() -> ResponseReturnValue:
    v.only(v.json_body(), set(), "snapshot")
    service = _calibration()
    picture: Picture = _calibration_step(service.snapshot)
    current_dashboard().calibration_size = (picture.width, picture.height)
    return jsonify(_picture(picture))


@bp.post("/calibration/auto-corners")
@require_token
def calibration_auto() -> ResponseReturnValue:
    v.only(v.json_body(), set(), "auto-corners")
    service = _calibration()
    if current_dashboard().calibration_size is None:
        raise ApiError(409, "take a snapshot first")
    guess = _calibration_step(service.auto_corners)
    if guess is None:
        raise ApiError(422, "the board finder did not find the board: click its four corners")
    return jsonify(
        {
            "corners": [[round(x, 1), round(y, 1)] for x, y in guess.corners],
            "confidence": round(float(guess.confidence), 3),
            "source": guess.source,
        }
    )


def _corners_from_body(allowed: set[str]) -> tuple[dict[str, Any], Any]:
    data = v.json_body()
    v.only(data, allowed | {"corners"}, "calibration")
    return data, v.corners(data.get("corners"), current_dashboard().calibration_size)


@bp.post("/calibration/preview")
@require_token
def calibration_preview() -> ResponseReturnValue:
    service = _calibration()
    _, corners = _corners_from_body(set())
    result = _calibration_step(lambda: service.rectify(corners))
    return jsonify(
        {
            **_picture(result.picture),
            "note": result.note,
            "checkers": [
                {"x": round(c.x, 1), "y": round(c.y, 1), "r": round(c.radius, 1), "colour": c.colour}
                for c in result.checkers
            ],
        }
    )


@bp.post("/calibration/colours")
@require_token
def calibration_colours() -> ResponseReturnValue:
    service = _calibration()
    _, corners = _corners_from_body(set())
    summary = _calibration_step(lambda: service.learn_colours(corners))
    return jsonify({"ok": True, "colours": dict(summary)})


@bp.post("/calibration/save")
@require_token
def calibration_save() -> ResponseReturnValue:
    service = _calibration()
    data, corners = _corners_from_body({"name"})
    profile = v.name(data.get("name"), "profile name")
    where = _calibration_step(lambda: service.save_profile(profile, corners))
    current_dashboard().broadcaster.poke()
    return jsonify({"ok": True, "name": profile, "saved": str(where)})


@bp.post("/calibration/use")
@require_token
def calibration_use() -> ResponseReturnValue:
    service = _calibration()
    data = v.json_body()
    v.only(data, {"name"}, "use profile")
    profile = v.name(data.get("name"), "profile name")
    if profile not in _calibration_step(service.profiles):
        raise ApiError(404, f"there is no profile named {profile!r}")
    _calibration_step(lambda: service.use_profile(profile))
    current_dashboard().broadcaster.poke()
    return jsonify({"ok": True, "current": profile})


# ================================================================================ history
def _archive() -> MatchArchive:
    archive = current_dashboard().services.archive
    if archive is None:
        raise ApiError(404, "no match store in this session")
    return archive


def _plain(value: Any) -> Any:
    """The store's answer as plain JSON data."""
    if isinstance(value, Mapping):
        return {str(k): _plain(x) for k, x in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(x) for x in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


@bp.get("/matches")
def matches() -> ResponseReturnValue:
    archive = current_dashboard().services.archive
    if archive is None:
        return jsonify({"available": False, "matches": [], "formats": []})
    return jsonify(
        {"available": True, "matches": _plain(list(archive.list_matches())), "formats": list(archive.formats)}
    )


@bp.get("/matches/<match>")
def match(match: str) -> ResponseReturnValue:
    archive = _archive()
    try:
        data = archive.load_match(v.match_id(match))
    except KeyError:
        raise ApiError(404, f"no recorded match {match!r}") from None
    analysis = isinstance(archive, MatchAnalyser)
    return jsonify({**_plain(data), "formats": list(archive.formats), "analysis": analysis})


@bp.get("/matches/<match>/analysis")
def match_analysis(match: str) -> ResponseReturnValue:
    archive = _archive()
    match_id = v.match_id(match)
    if not isinstance(archive, MatchAnalyser):
        raise ApiError(404, "this match store does not analyse matches")
    try:
        data = archive.analyse(match_id)
    except KeyError:
        raise ApiError(404, f"no recorded match {match_id!r}") from None
    except RuntimeError as exc:
        raise ApiError(503, f"no analysis of match {match_id}: {exc}") from None
    return jsonify(_plain(data))


SAFE_FILENAME = re.compile(r"[^A-Za-z0-9._-]+")


@bp.get("/matches/<match>/export/<fmt>")
def export(match: str, fmt: str) -> ResponseReturnValue:
    archive = _archive()
    match_id, fmt = v.match_id(match), v.export_format(fmt)
    if fmt not in archive.formats:
        raise ApiError(404, f"no export format {fmt!r} (this store makes {', '.join(archive.formats)})")
    try:
        made = archive.export(match_id, fmt)
    except KeyError:
        raise ApiError(404, f"no recorded match {match_id!r}") from None
    except ValueError as exc:
        raise ApiError(422, f"cannot export {match_id} as {fmt}: {exc}") from None
    if isinstance(made, Download):
        filename = SAFE_FILENAME.sub("_", made.filename).strip("._") or f"{match_id}.{fmt}"
        response = Response(made.data, mimetype=made.media_type)
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
    if isinstance(made, Path):
        path = inside_data_dir(made)
        return send_file(path, as_attachment=True, download_name=SAFE_FILENAME.sub("_", path.name))
    raise ApiError(500, "the match store gave neither a download nor a file")
