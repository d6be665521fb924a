"""The dashboard's Flask application factory and a stoppable server for it.

>>> from nardy.referee.session import Referee
>>> from nardy.web.services import Services
from nardy.web.sse import json_text
>>> app = create_app(Services(Referee()))
>>> handle = serve_in_thread(app, "127.0.0.1", 0)      # doctest: +SKIP
>>> print(handle.link())                                 # doctest: +SKIP
http://127.0.0.1:41235/?token=...
>>> handle.stop()                                        # doctest: +SKIP

Nothing runs until a viewer connects: the live-update worker starts with the first stream, the
hint worker with the first hint asked for. :func:`close_app` (or ``ServerHandle.stop``) stops both.
"""

from __future__ import annotations

import logging
import secrets
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from flask import Flask
from flask.json.provider import DefaultJSONProvider
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from nardy.referee.session import Referee
from nardy.web import api, pages
from nardy.web.http import register_errors
from nardy.web.live import Dashboard
from nardy.web.security import MAX_BODY, security_headers
from nardy.web.services import Services
from nardy.web.sse import json_text

log = logging.getLogger(__name__)


class _BrowserJSON(DefaultJSONProvider):
    """JSON a browser can parse: no ``Infinity`` or ``NaN`` (they become null)."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        return json_text(obj)


def create_app(services: Services | None = None, config: Mapping[str, Any] | None = None) -> Flask:
    """The dashboard for ``services`` (default: a referee of its own, fed by hand).

    ``config`` overrides Flask settings (``SECRET_KEY``, ``TESTING`` ...). The running parts are
    ``app.extensions["nardy"]``, a :class:`~nardy.web.live.Dashboard`.
    """
    app = Flask(__name__)
    app.config.update(
        SECRET_KEY=secrets.token_hex(32),
        MAX_CONTENT_LENGTH=MAX_BODY,
        SESSION_COOKIE_NAME="nardy_session",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
    )
    if config:
        app.config.update(config)
    app.json = _BrowserJSON(app)
    app.extensions["nardy"] = Dashboard(services or Services(Referee()))
    register_errors(app)
    app.after_request(security_headers)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    return app


def dashboard_of(app: Flask) -> Dashboard:
    dash = app.extensions["nardy"]
    assert isinstance(dash, Dashboard)
    return dash


def close_app(app: Flask) -> None:
    """Stop the app's live updates and hint worker (open event streams end)."""
    dashboard_of(app).close()


class _QuietHandler(WSGIRequestHandler):
    """Request lines go to the debug log, not to stderr."""

    def log(self, type: str, message: str, *args: Any) -> None:
        level = logging.WARNING if type == "error" else logging.DEBUG
        log.log(level, "%s %s", self.address_string(), message % args)


@dataclass
class ServerHandle:
    """A dashboard served from a background thread."""

    app: Flask
    server: BaseWSGIServer
    thread: threading.Thread

    @property
    def host(self) -> str:
        return str(self.server.host)

    @property
    def port(self) -> int:
        return int(self.server.port)

    @property
    def url(self) -> str:
        host = self.host
        if host in ("0.0.0.0", "::", ""):
            host = "127.0.0.1"
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    def link(self) -> str:
        """The URL with the access token: opening it unlocks the controls in that browser."""
        return f"{self.url}?token={quote(dashboard_of(self.app).settings.token)}"

    def stop(self, close: bool = True) -> None:
        """Stop serving; with ``close`` also end the event streams and the app's workers first."""
        if close:
            close_app(self.app)
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def serve_in_thread(app: Flask, host: str = "127.0.0.1", port: int = 0) -> ServerHandle:
    """Serve ``app`` on ``host:port`` (0: any free port) from a daemon thread; stop with ``stop()``.

    Raises ``OSError`` when the address cannot be used (werkzeug alone would exit the process).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
        bound = sock.getsockname()[1]
        # werkzeug takes a copy of the listening socket
        server = make_server(host, bound, app, threaded=True, request_handler=_QuietHandler, fd=sock.fileno())
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.1}, name="nardy-web-server", daemon=True
    )
    thread.start()
    return ServerHandle(app, server, thread)
