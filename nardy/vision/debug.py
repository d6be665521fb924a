"""Drawing what the recognizer saw onto the frame (``nardy recognize --debug``)."""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.geometry import POINTS_PER_ROW, ROWS
from nardy.vision.observation import Observation
from nardy.vision.rectify import RectifyMaps

_LIGHT = (255, 255, 255)
_DARK = (40, 40, 40)
_OUTLINE = (0, 200, 255)
_ALERT = (0, 0, 255)


def draw_observation(
    frame: NDArray[np.uint8], observation: Observation, corners: NDArray[np.floating], diameter_px: float
) -> NDArray[np.uint8]:
    """A copy of ``frame`` (H, W, 3) uint8 BGR with the playing area, every checker counted (ringed in
    its colour), each point's count and, when not settled, where."""
    out = frame.copy()
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    cv2.polylines(out, [np.round(c).astype(np.int32)], True, _OUTLINE, 2, cv2.LINE_AA)
    maps = observation.debug.get("maps")
    if not isinstance(maps, RectifyMaps):
        return out
    scale = max(1.0, float(np.linalg.norm(c[1] - c[0])) / (maps.size[0] - 2 * maps.left))
    radius = max(3, int(round(diameter_px / 2 * scale)))
    lines = {"top": observation.debug.get("tops", []), "bottom": observation.debug.get("bottoms", [])}
    for row in ROWS:
        for i in range(POINTS_PER_ROW):
            reading = observation.row(row)[i]
            stack = reading.most_likely()
            line = lines[row][i] if i < len(lines[row]) else None
            colour = _LIGHT if stack.colour == "light" else _DARK
            centres = list(line.centres) if line is not None else []
            for x, y in maps.to_frame(np.array(centres).reshape(-1, 2)):
                cv2.circle(out, (int(round(x)), int(round(y))), radius, colour, 2, cv2.LINE_AA)
                cv2.circle(out, (int(round(x)), int(round(y))), radius + 2, _OUTLINE, 1, cv2.LINE_AA)
            if stack.count:
                base = maps.to_frame(
                    np.array(
                        [[centres[0][0] if centres else 0.0, 2.0 if row == "top" else maps.size[1] - 3.0]]
                    )
                )[0]
                label = f"{stack.count}{'L' if stack.colour == 'light' else 'D'}"
                alert = reading.confidence < 0.8
                cv2.putText(
                    out,
                    label,
                    (int(base[0]) - 10, int(base[1]) + (-6 if row == "top" else 18)),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.5,
                    _ALERT if alert else _OUTLINE,
                    1,
                    cv2.LINE_AA,
                )
    for (x, y), odds in observation.debug.get("bar", []):
        if odds > 0:
            fx, fy = maps.to_frame(np.array([[x, y]]))[0]
            cv2.circle(out, (int(round(fx)), int(round(fy))), radius, _OUTLINE, 2, cv2.LINE_AA)
    status = "settled" if observation.settled else "NOT SETTLED: " + ", ".join(observation.unsettled)
    text = (
        f"{status}  confidence {observation.confidence:.2f}  {observation.timings_ms.get('total', 0):.1f} ms"
    )
    cv2.putText(out, text, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(
        out,
        text,
        (10, 24),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.6,
        _OUTLINE if observation.settled else _ALERT,
        1,
        cv2.LINE_AA,
    )
    return np.asarray(out, dtype=np.uint8)
