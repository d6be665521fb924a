"""Small real stand-ins for the parts the dashboard talks to: camera, calibration, store, hints.

They implement the protocols of :mod:`nardy.web.services` with real pictures (OpenCV) and real
rules (legal plays), and record what the dashboard asked of them so tests can check it.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.referee.session import Referee
from nardy.rules import Position, Roll, find_variant
from nardy.web.services import (
    CameraFrame,
    CornerGuess,
    Corners,
    Download,
    Picture,
    Rectified,
    SeenChecker,
)

Image = NDArray[np.uint8]


def jpeg(image: Image, quality: int = 85) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return bytes(data.tobytes())


# ================================================================================ pictures
TABLE_SIZE = (640, 400)
BOARD_CORNERS: Corners = ((140.0, 70.0), (520.0, 90.0), (540.0, 340.0), (110.0, 320.0))
RECTIFIED = (480, 320)


def table_picture() -> tuple[Image, list[tuple[float, float, str]]]:
    """A table with a board seen slightly askew, and the checkers drawn on it (x, y, colour)."""
    w, h = TABLE_SIZE
    image = np.full((h, w, 3), (40, 60, 90), np.uint8)
    quad = np.array(BOARD_CORNERS, np.int32)
    cv2.fillPoly(image, [quad], (60, 110, 60))
    cv2.polylines(image, [quad], True, (30, 60, 120), 6)
    src = np.array([[0, 0], [RECTIFIED[0], 0], [RECTIFIED[0], RECTIFIED[1]], [0, RECTIFIED[1]]], np.float32)
    to_image = cv2.getPerspectiveTransform(src, np.array(BOARD_CORNERS, np.float32))
    checkers: list[tuple[float, float, str]] = []
    for i in range(5):
        for colour, x in (("light", 30.0), ("dark", RECTIFIED[0] - 30.0)):
            p = cv2.perspectiveTransform(np.array([[[x, 30.0 + 40 * i]]], np.float32), to_image)[0, 0]
            checkers.append((float(p[0]), float(p[1]), colour))
            shade = (230, 230, 230) if colour == "light" else (20, 20, 20)
            cv2.circle(image, (int(p[0]), int(p[1])), 14, shade, -1, cv2.LINE_AA)
    return image, checkers


# ================================================================================ camera
class FakeCamera:
    """Frames pushed by the test; counts how often the dashboard asked."""

    def __init__(self) -> None:
        self.frame: CameraFrame | None = None
        self.calls = 0
        self._seq = 0

    def push(self, image: Image | None = None) -> CameraFrame:
        if image is None:
            image, _ = table_picture()
        overlay = image.copy()
        cv2.polylines(overlay, [np.array(BOARD_CORNERS, np.int32)], True, (0, 215, 255), 3)
        self._seq += 1
        h, w = image.shape[:2]
        self.frame = CameraFrame(jpeg(image), jpeg(overlay), self._seq, w, h)
        return self.frame

    def latest_frame(self) -> CameraFrame | None:
        self.calls += 1
        return self.frame


# ================================================================================ calibration
class FakeCalibration:
    """Calibration on a drawn table picture: a real perspective warp, known checkers."""

    def __init__(self, start_position: bool = True, finds_board: bool = True) -> None:
        self.image, self.checkers = table_picture()
        self.start_position = start_position
        self.finds_board = finds_board
        self.snapshots = 0
        self.corners_seen: list[Corners] = []
        self.saved: dict[str, Corners] = {}
        self.current: str | None = None

    def snapshot(self) -> Picture:
        self.snapshots += 1
        return Picture(jpeg(self.image), TABLE_SIZE[0], TABLE_SIZE[1])

    def auto_corners(self) -> CornerGuess | None:
        return CornerGuess(BOARD_CORNERS, 0.93) if self.finds_board else None

    def _homography(self, corners: Corners) -> NDArray[np.float64]:
        w, h = RECTIFIED
        dst = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        return np.asarray(cv2.getPerspectiveTransform(np.array(corners, np.float32), dst), np.float64)

    def rectify(self, corners: Corners) -> Rectified:
        self.corners_seen.append(corners)
        m = self._homography(corners)
        board = np.asarray(cv2.warpPerspective(self.image, m, RECTIFIED), np.uint8)
        seen = []
        for x, y, colour in self.checkers:
            p = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), m)[0, 0]
            seen.append(SeenChecker(float(p[0]), float(p[1]), 14.0, colour))
        return Rectified(Picture(jpeg(board), *RECTIFIED), tuple(seen), f"{len(seen)} checkers")

    def learn_colours(self, corners: Corners) -> Mapping[str, Any]:
        self.corners_seen.append(corners)
        if not self.start_position:
            raise ValueError("the board is not in the start position: set it up and take a new snapshot")
        return {"light": "#e6e6e6", "dark": "#141414", "checkers": 30}

    def save_profile(self, name: str, corners: Corners) -> str:
        self.saved[name] = corners
        self.current = name
        return f"profiles/{name}.json"

    def profiles(self) -> Sequence[str]:
        return sorted(self.saved)

    def current_profile(self) -> str | None:
        return self.current

    def use_profile(self, name: str) -> None:
        if name not in self.saved:
            raise KeyError(f"no profile {name!r}")
        self.current = name


# ================================================================================ store
class FakeArchive:
    """Recorded matches in memory; ``file`` exports come back as paths (inside the data folder, or
    wherever ``file_path`` says, to test that nothing outside it is sent)."""

    formats: tuple[str, ...] = ("mat", "sgf", "json", "sheet", "file")

    def __init__(self, file_path: Path | None = None) -> None:
        self.matches: dict[str, dict[str, Any]] = {}
        self.file_path = file_path
        self.exports: list[tuple[str, str]] = []

    def add(self, match_id: str, data: dict[str, Any]) -> None:
        self.matches[match_id] = {"id": match_id, **data}

    def record(self, match_id: str, referee: Referee, started: str = "2026-03-01 19:30") -> None:
        """The referee's current game, as the store would keep it."""
        info = referee.info.to_json()
        score = referee.score.to_json()
        game = {
            "number": referee.game_number,
            "moves": [m.to_json() for m in referee.moves],
            "result": None if referee.result is None else referee.result.to_json(),
        }
        self.add(
            match_id,
            {
                "match": info,
                "games": [game],
                "started": started,
                "score": score,
                "white": info["white"],
                "black": info["black"],
                "variant": info["variant"],
                "length": info["length"],
            },
        )

    def list_matches(self) -> Sequence[Mapping[str, Any]]:
        rows = []
        for m in self.matches.values():
            rows.append(
                {k: m.get(k) for k in ("id", "white", "black", "variant", "length", "score", "started")}
                | {"games": len(m.get("games", []))}
            )
        return rows

    def load_match(self, match_id: str) -> Mapping[str, Any]:
        return self.matches[match_id]

    def export(self, match_id: str, fmt: str) -> Download | Path:
        match = self.matches[match_id]
        self.exports.append((match_id, fmt))
        if fmt == "file":
            if self.file_path is None:
                raise ValueError("no file")
            return self.file_path
        if fmt == "json":
            import json

            return Download(f"{match_id}.json", "application/json", json.dumps(match).encode())
        text = f"{fmt} export of {match_id}: {len(match.get('games', []))} game(s)\n"
        return Download(f"{match_id}.{fmt}", "text/plain", text.encode())


# ================================================================================ hints
class FakeHint:
    def __init__(self, plays: list[dict[str, Any]]) -> None:
        self.plays = plays

    def to_json(self) -> dict[str, Any]:
        return {"engine": "fake 0-ply", "note": None, "plays": self.plays}


class FakeEngine:
    """Ranks the legal plays by how few pips the mover has left (a real, simple evaluation)."""

    def __init__(self, variant: str, gate: threading.Event | None = None) -> None:
        self.variant = find_variant(variant)
        self.gate = gate
        self.calls: list[tuple[str, str, bool]] = []

    @property
    def name(self) -> str:
        return f"fake {self.variant.name}"

    def hint(self, position: Position, roll: Roll, first_turn: bool = False) -> FakeHint:
        self.calls.append((position.json_text(), roll.text(), first_turn))
        if self.gate is not None:
            self.gate.wait(10)
        plays = self.variant.legal_plays(position, roll, first_turn)
        mover = position.turn
        scored = []
        for play, after in plays.items():
            spread = sum(1 for n in after.points if (n > 0) == (mover.value == "white") and n != 0)
            scored.append((spread, play.text()))
        scored.sort(key=lambda s: (-s[0], s[1]))
        top = scored[0][0] if scored else 0
        return FakeHint(
            [
                {
                    "play": text,
                    "equity": round(0.1 * s - 0.5, 3),
                    "loss": round(0.1 * (top - s), 3),
                    "chances": None,
                }
                for s, text in scored
            ]
        )


class FakeHints:
    """A hint factory (variant name -> engine) that remembers its engines."""

    def __init__(self, gate: threading.Event | None = None, fail: bool = False) -> None:
        self.gate = gate
        self.fail = fail
        self.engines: dict[str, FakeEngine] = {}

    def __call__(self, variant: str) -> FakeEngine:
        if self.fail:
            raise RuntimeError("the engine's weights are missing")
        engine = self.engines.setdefault(variant, FakeEngine(variant, self.gate))
        return engine
