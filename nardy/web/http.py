"""HTTP plumbing shared by the blueprints: JSON errors and the app's dashboard.

Every error under ``/api`` and ``/events`` is JSON, ``{"error": "what went wrong", "status": 400}``,
whatever raised it (a validation error, the referee refusing a command, a missing route, a bug):
a malformed request never gets an HTML page or takes the session down.
"""

from __future__ import annotations

import logging
from typing import cast

from flask import Flask, current_app, jsonify, request
from flask.typing import ResponseReturnValue
from werkzeug.exceptions import HTTPException

from nardy.web.live import Dashboard

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A request the dashboard refuses, with the status and a message for the person."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def current_dashboard() -> Dashboard:
    return cast(Dashboard, current_app.extensions["nardy"])


def _wants_json() -> bool:
    path = request.path
    return path.startswith("/api/") or path == "/api" or path.startswith("/events")


def error_response(status: int, message: str) -> ResponseReturnValue:
    response = jsonify({"error": message, "status": status})
    response.status_code = status
    return response


def register_errors(app: Flask) -> None:
    """JSON errors for the API and the event stream; plain pages keep Flask's HTML ones."""

    @app.errorhandler(ApiError)
    def _api_error(exc: ApiError) -> ResponseReturnValue:
        return error_response(exc.status, exc.message)

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> ResponseReturnValue:
        if not _wants_json():
            return exc
        status = exc.code or 500
        messages = {
            404: f"no such resource: {request.path}",
            405: f"{request.method} is not allowed on {request.path}",
            413: "the request body is too large",
        }
        return error_response(status, messages.get(status, exc.description or exc.name))

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> ResponseReturnValue:
        log.exception("dashboard request %s %s failed", request.method, request.path)
        if _wants_json():
            return error_response(500, f"internal error: {type(exc).__name__}; the session goes on")
        return "Internal error; the session goes on. Reload the page.", 500
