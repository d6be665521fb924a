"""The pages (live board, calibration, history) and the live-update stream.

A page opened with ``?token=...`` unlocks this browser's session and redirects to itself without
the token, so it does not stay in the address bar or the history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Response, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue

from nardy.web.http import ApiError, current_dashboard
from nardy.web.security import authorization, csrf_token, unlock_session
from nardy.web.sse import TooManyViewers

bp = Blueprint("pages", __name__)


def _page(template: str, endpoint: str, **extra: Any) -> ResponseReturnValue:
    if "token" in request.args:
        if not unlock_session(request.args.get("token")):
            session["token_rejected"] = True
        args: dict[str, Any] = {k: v for k, v in request.args.items() if k != "token"}
        return redirect(url_for(endpoint, **args), code=303)
    dash = current_dashboard()
    return render_template(
        template,
        csrf=csrf_token(),
        authorized=authorization() is not None,
        token_rejected=session.pop("token_rejected", False),
        mode=dash.mode,
        available=dash.services.available(),
        settings=dash.settings,
        **extra,
    )


@bp.get("/")
def live() -> ResponseReturnValue:
    return _page("live.html", "pages.live", initial=current_dashboard().snapshot())


@bp.get("/calibrate")
def calibrate() -> ResponseReturnValue:
    return _page("calibrate.html", "pages.calibrate")


@bp.get("/history")
def history() -> ResponseReturnValue:
    return _page("history.html", "pages.history")


class _Stream:
    """The event stream's body: closing it (the client went away, the server stops) frees the
    viewer even when the stream never started."""

    def __init__(self, lines: Iterator[str], on_close: Callable[[], None]) -> None:
        self._lines = lines
        self._on_close = on_close

    def __iter__(self) -> Iterator[str]:
        return self._lines

    def close(self) -> None:
        try:
            close = getattr(self._lines, "close", None)
            if close is not None:
                close()
        finally:
            self._on_close()


@bp.get("/events")
def events() -> ResponseReturnValue:
    """Server-Sent Events: the full state on connect, then changes (see :mod:`nardy.web.sse`)."""
    dash = current_dashboard()
    broadcaster = dash.broadcaster
    try:
        viewer = broadcaster.connect()
    except TooManyViewers as exc:
        raise ApiError(503, str(exc)) from None
    body = _Stream(
        broadcaster.stream(viewer, dash.settings.heartbeat_seconds), lambda: broadcaster.disconnect(viewer)
    )
    return Response(
        body,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
