"""What the dashboard needs from the rest of the session, as small protocols and value types.

The live session runner builds a :class:`Services` and hands it to :func:`nardy.web.app.create_app`.
Only the referee is required; every other part is optional and the pages say so when it is
missing ("no camera", "no match store", "hints are off"):

- ``camera``: a :class:`FrameSource`, the latest camera picture and the same picture with what
  vision saw drawn over it, as JPEG;
- ``archive``: a :class:`MatchArchive`, the recorded matches and their exports, and when it is
  also a :class:`MatchAnalyser`, each match's post-match analysis (the marks on the history page);
- ``hints``: a function from a variant name to a :class:`HintEngine` (``nardy.hints.engine_for``
  fits);
- ``calibration``: a :class:`CalibrationService`, snapshot, automatic corners, rectified preview,
  colour learning and profiles.

Nothing here imports Flask: the runner can build its services without the web stack loaded.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

from nardy.referee.session import Referee
from nardy.rules import Position, Roll

Mode = Literal["referee", "training"]
MODES: tuple[Mode, ...] = ("referee", "training")


def new_token() -> str:
    """A fresh access token: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


@dataclass(frozen=True, slots=True)
class Settings:
    """How the dashboard behaves; the defaults suit a club table."""

    mode: Mode = "referee"
    """``referee`` (tournament: only legality, no hints) or ``training`` (legal plays and hints)."""
    token: str = field(default_factory=new_token)
    """The access token every control needs. Viewers without it can only watch."""
    data_dir: Path | None = None
    """The data folder: downloads (exports the store hands back as files) must lie inside it."""
    heartbeat_seconds: float = 15.0
    """An idle live-update stream sends a comment this often, so dead viewers are noticed."""
    client_queue: int = 64
    """Updates a viewer may fall behind before it is dropped (it reconnects and resyncs)."""
    max_viewers: int = 200
    """Live-update streams open at once; more are refused with 503."""
    hint_plays: int = 12
    """How many ranked plays of a hint the page gets."""
    camera_refresh_ms: int = 500
    """How often the live page fetches a new camera picture."""
    watchdog_seconds: float = 30.0
    """A page that heard nothing this long checks the referee's version and resyncs if it is
    behind (a connection can die without either end noticing, e.g. on Wi-Fi)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be 'referee' or 'training', not {self.mode!r}")
        if len(self.token) < 8:
            raise ValueError("the access token must be at least 8 characters")
        if self.heartbeat_seconds <= 0 or self.client_queue < 2 or self.max_viewers < 1:
            raise ValueError("heartbeat_seconds, client_queue and max_viewers must be positive")
        if self.watchdog_seconds <= 0 or self.camera_refresh_ms < 50:
            raise ValueError("watchdog_seconds must be positive and camera_refresh_ms at least 50")


# ---------------------------------------------------------------------------------------- camera
@dataclass(frozen=True, slots=True)
class CameraFrame:
    """One camera picture as the dashboard shows it."""

    jpeg: bytes
    """The picture as the camera took it (JPEG)."""
    overlay: bytes | None
    """The same picture with what vision saw drawn over it (JPEG), when there is one."""
    seq: int
    """Frame number: grows with every new frame (the page asks only for new ones)."""
    width: int
    height: int


@runtime_checkable
class FrameSource(Protocol):
    """The camera loop's latest frame. Called from request threads: must not block."""

    def latest_frame(self) -> CameraFrame | None:
        """The newest frame, or None before the first one."""
        ...


# ---------------------------------------------------------------------------------------- store
@dataclass(frozen=True, slots=True)
class Download:
    """An export made in memory."""

    filename: str
    media_type: str
    data: bytes


@runtime_checkable
class MatchArchive(Protocol):
    """Recorded matches (the match store) and their exports.

    ``list_matches`` gives one mapping per match, newest first, with at least ``id`` (text) and
    where known ``white``, ``black``, ``variant``, ``length``, ``score`` ({"white": n, "black": n}),
    ``started`` (text) and ``games`` (count).

    ``load_match`` gives ``{"id", "match": MatchInfo JSON, "games": [{"number", "moves": [turn JSON
    as the referee's ``turn-ended`` event carries it], "result": GameResult JSON | None}]}`` and
    raises ``KeyError`` for an unknown id.

    ``export`` makes one of ``formats`` (``mat``, ``sgf``, ``json``, ``sheet``...): a
    :class:`Download`, or the path of a file inside the data folder (anything else is refused).
    """

    @property
    def formats(self) -> Sequence[str]: ...

    def list_matches(self) -> Sequence[Mapping[str, Any]]: ...

    def load_match(self, match_id: str) -> Mapping[str, Any]: ...

    def export(self, match_id: str, fmt: str) -> Download | Path: ...


@runtime_checkable
class MatchAnalyser(Protocol):
    """What an archive may add to :class:`MatchArchive`: the post-match analysis of a match.

    ``analyse`` gives ``{"id", "engine", "thresholds": {"doubtful", "error", "blunder"},
    "summary": {"white" | "black": {"decisions", "total_loss", "mean_loss", "marks": {mark: n}}},
    "games": [{"number", "turns": [{"number", "mover", "loss", "mark", "best", "best_equity",
    "rank", "choices"}]}]}``: per game, one entry per turn of ``load_match``'s ``moves``, numbered
    the same. ``mark`` is ``""``, ``doubtful``, ``error``, ``blunder``, ``forced``, ``no-play`` or
    ``illegal``; ``loss`` is the equity given up against the engine's ``best`` play (None for an
    illegal one). It may take seconds (the dashboard calls it from a request thread, after the
    page has drawn the match), so an archive should keep what it made. Raises ``KeyError`` for an
    unknown id and ``RuntimeError`` (with a message a person can read) when the analysis failed.
    """

    def analyse(self, match_id: str) -> Mapping[str, Any]: ...


# ---------------------------------------------------------------------------------------- hints
class HintLike(Protocol):
    """A ranked list of plays; ``to_json`` as :class:`nardy.hints.engine.Hint` writes it:
    ``{"engine", "note", "plays": [{"play", "equity", "loss", "chances"}...]}``, best first."""

    def to_json(self) -> dict[str, Any]: ...


class HintEngine(Protocol):
    """Ranks the legal plays of a roll (``nardy.hints.engine.HintEngine`` fits)."""

    @property
    def name(self) -> str: ...

    def hint(self, position: Position, roll: Roll, first_turn: bool = False) -> HintLike: ...


HintFactory = Callable[[str], HintEngine]
"""Variant name -> its hint engine (``nardy.hints.engine_for`` fits)."""


# ---------------------------------------------------------------------------------------- calibration
Corners = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]
"""The playing area's image corners (x, y) in pixels: top-left, top-right, bottom-right, bottom-left."""


@dataclass(frozen=True, slots=True)
class Picture:
    """A still image for the calibration page."""

    jpeg: bytes
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class CornerGuess:
    """What the automatic board finder found."""

    corners: Corners
    confidence: float
    """0..1."""
    source: str = "auto"
    """``auto`` or ``markers``."""


@dataclass(frozen=True, slots=True)
class SeenChecker:
    """A checker found on the rectified board (pixels of the rectified image)."""

    x: float
    y: float
    radius: float
    colour: str
    """``light``, ``dark`` or ``unknown``."""


@dataclass(frozen=True, slots=True)
class Rectified:
    """The board seen straight on, with the checkers vision found on it."""

    picture: Picture
    checkers: tuple[SeenChecker, ...] = ()
    note: str = ""
    """Anything the page should say (e.g. "12 light, 11 dark: two may be hidden")."""


@runtime_checkable
class CalibrationService(Protocol):
    """Calibration steps, each on the last snapshot. Errors are ``ValueError`` with a message a
    person can act on ("the board is not in the start position")."""

    def snapshot(self) -> Picture:
        """Take a new still from the camera (raises ``RuntimeError`` when there is no camera picture)."""
        ...

    def auto_corners(self) -> CornerGuess | None:
        """The board finder on the last snapshot; None when it found no board."""
        ...

    def rectify(self, corners: Corners) -> Rectified:
        """The last snapshot warped to the board seen from above, with the checkers detected."""
        ...

    def learn_colours(self, corners: Corners) -> Mapping[str, Any]:
        """Learn the checker and board colours from the last snapshot, which must show the start
        position; returns a summary such as ``{"light": "#e8dcc0", "dark": "#2b2220", "checkers": 30}``."""
        ...

    def save_profile(self, name: str, corners: Corners) -> str:
        """Save the profile under ``name`` (validated by the dashboard: letters, digits, ``-_. ``);
        return where it went, for the page to show."""
        ...

    def profiles(self) -> Sequence[str]:
        """Saved profile names."""
        ...

    def current_profile(self) -> str | None: ...

    def use_profile(self, name: str) -> None:
        """Switch the live session to a saved profile (``KeyError`` when there is none by that name)."""
        ...


# ---------------------------------------------------------------------------------------- all of it
@dataclass
class Services:
    """Everything the dashboard talks to. Only ``referee`` is required."""

    referee: Referee
    camera: FrameSource | None = None
    archive: MatchArchive | None = None
    hints: HintFactory | None = None
    calibration: CalibrationService | None = None
    settings: Settings = field(default_factory=Settings)

    def available(self) -> dict[str, bool]:
        """Which optional parts there are (the pages show or explain each)."""
        return {
            "camera": self.camera is not None,
            "archive": self.archive is not None,
            "hints": self.hints is not None,
            "calibration": self.calibration is not None,
        }
