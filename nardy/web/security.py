"""Who may do what: anyone may watch; the access token unlocks the controls.

- A control (every ``POST`` under ``/api``) needs the token, either as ``Authorization: Bearer
  TOKEN`` (scripts: no cookie is involved, so no cross-site risk), or through a session unlocked by
  opening the start-up link ``/?token=TOKEN`` or by ``POST /api/login``. Session requests must also
  carry ``X-CSRF-Token`` equal to the token in the page (a cross-site page cannot read it) and,
  when the browser sends an ``Origin``, come from this host. The session cookie is HttpOnly and
  SameSite=Strict.
- ``POST`` bodies are JSON objects (``415`` otherwise), at most ``MAX_BODY`` bytes (``413``).
- Every response forbids framing and sniffing, sends no referrer (the token link never leaks)
  and allows scripts, styles and connections to this host only.
- Files sent from disk must lie inside the data folder, after resolving links.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Literal, ParamSpec, TypeVar
from urllib.parse import urlsplit

from flask import Response, current_app, request, session

from nardy.web.http import ApiError, current_dashboard

MAX_BODY = 64 * 1024
"""Largest request body accepted (a position correction is under 1 KiB)."""

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; media-src 'self' data:; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

P = ParamSpec("P")
R = TypeVar("R")


def _fingerprint(token: str) -> str:
    key = current_app.secret_key
    raw = key.encode() if isinstance(key, str) else bytes(key or b"")
    return hmac.new(raw, token.encode(), hashlib.sha256).hexdigest()


def token_matches(candidate: object) -> bool:
    """Constant-time comparison with the access token."""
    if not isinstance(candidate, str) or not candidate:
        return False
    return hmac.compare_digest(candidate.encode(), current_dashboard().settings.token.encode())


def unlock_session(candidate: object) -> bool:
    """Unlock this browser's session when ``candidate`` is the token."""
    if not token_matches(candidate):
        return False
    session["auth"] = _fingerprint(current_dashboard().settings.token)
    csrf_token()
    return True


def lock_session() -> None:
    session.pop("auth", None)


def csrf_token() -> str:
    """This session's CSRF token (made on first use)."""
    token = session.get("csrf")
    if not isinstance(token, str) or len(token) < 16:
        token = secrets.token_urlsafe(24)
        session["csrf"] = token
    return token


def authorization() -> Literal["bearer", "session"] | None:
    """How this request proves it holds the token, if it does."""
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer ") and token_matches(header[7:].strip()):
        return "bearer"
    stamp = session.get("auth")
    if isinstance(stamp, str) and hmac.compare_digest(
        stamp, _fingerprint(current_dashboard().settings.token)
    ):
        return "session"
    return None


def check_same_site() -> None:
    """A session (cookie) request must come from our own page: CSRF token and origin."""
    origin = request.headers.get("Origin")
    if origin and origin != "null" and urlsplit(origin).netloc != request.host:
        raise ApiError(403, "this request comes from another site")
    sent = request.headers.get("X-CSRF-Token", "")
    expected = session.get("csrf")
    if not isinstance(expected, str) or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise ApiError(403, "missing or wrong CSRF token: reload the page")


def require_token(view: Callable[P, R]) -> Callable[P, R]:
    """Decorator for controls: 401 without the token, 403 for a cross-site session request."""

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        how = authorization()
        if how is None:
            raise ApiError(401, "this control needs the access token (open the link printed at start-up)")
        if how == "session":
            check_same_site()
        return view(*args, **kwargs)

    return wrapped


def security_headers(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CSP)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("X-Frame-Options", "DENY")
    headers.setdefault("Referrer-Policy", "no-referrer")
    headers.setdefault("Cross-Origin-Opener-Policy", "same-origin")
    if request.path.startswith("/api/") and "Cache-Control" not in headers:
        headers["Cache-Control"] = "no-store"
    return response


def inside_data_dir(path: Path) -> Path:
    """``path`` resolved, when it is a file inside the data folder; ApiError otherwise."""
    root = current_dashboard().settings.data_dir
    if root is None:
        raise ApiError(403, "there is no data folder to download from")
    base = root.resolve()
    try:
        target = (base / path).resolve(strict=True)
    except (OSError, RuntimeError):
        raise ApiError(404, "the file is not there") from None
    if not target.is_relative_to(base) or not target.is_file():
        raise ApiError(403, "downloads come from the data folder only")
    return target
