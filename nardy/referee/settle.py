"""Settling: a reading counts only once the board has been still, with no hand in view."""

from __future__ import annotations

from collections.abc import Hashable

from nardy.referee.config import RefereeConfig

_EPS = 1e-9
"""Held times are sums of frame intervals: 0.2 s five times is a hair under 1 s."""


class Settler:
    """Fed, frame by frame, what the board means now; says when that meaning has settled.

    The caller gives a *key* for each settled-looking frame -- what the reading means under the
    rules (which candidate position it shows), so that small flickers of the camera's most
    likely counts do not keep the board from settling -- or None while something moves over the
    board. A key is settled once it has held for ``settle_seconds`` and ``min_settled_frames``
    frames; each settled key is reported once, until the board changes or is disturbed.

    A disturbance shorter than ``flicker_seconds`` (one or two frames called unsettled by noise
    or glare) pauses the count rather than restarting it: the frames on either side of it must
    still show the same meaning, and only the still frames count towards ``min_settled_frames``.
    Only the time between still frames in a row counts as held: a hand that pauses for a frame
    now and then, between disturbances each too short to restart the count, never adds up to a
    board that held still.
    """

    def __init__(self, config: RefereeConfig) -> None:
        self.config = config
        self._key: Hashable | None = None
        self._since = 0.0
        self._held = 0.0
        """How long the key has held, counted between still frames in a row."""
        self._last: float | None = None
        """When the last frame was fed, if it was still (None after a disturbance)."""
        self._frames = 0
        self._reported: Hashable | None = None
        self.disturbed_since: float | None = None
        """When the board last stopped being settled (None while it is settled)."""
        self.calm_since: float | None = None
        """Since when nothing has been seen moving over the board (None while something is, and
        before the first frame); what the board means may still have flickered since."""
        self.where: tuple[str, ...] = ()
        self.stable: Hashable | None = None
        """The last key that settled, while the board still shows it (None after any change)."""

    def feed(
        self, key: Hashable | None, t: float, where: tuple[str, ...] = (), hold: float | None = None
    ) -> bool:
        """True when ``key`` has just settled. ``key`` None: the board is not settled (``where``).

        ``hold``: how long this key must last, if longer than ``settle_seconds``."""
        if key is None:
            if self.disturbed_since is None:
                self.disturbed_since = t
            self.calm_since = None
            self.where = where
            self._last = None
            if t - self.disturbed_since >= self.config.flicker_seconds:
                self._key = None
                self._frames = 0
                self._reported = None
                self.stable = None
            return False
        self.disturbed_since = None
        if self.calm_since is None:
            self.calm_since = t
        self.where = ()
        if key != self._key:
            self._key = key
            self._since = t
            self._held = 0.0
            self._last = t
            self._frames = 1
            self.stable = None
            return False
        if self._last is not None:
            self._held += t - self._last
        self._last = t
        self._frames += 1
        if (
            key != self._reported
            and self._frames >= self.config.min_settled_frames
            and self._held + _EPS >= max(self.config.settle_seconds, hold or 0.0)
        ):
            self._reported = key
            self.stable = key
            return True
        return False

    @property
    def since(self) -> float | None:
        """When the key now being fed began to hold (None while there is none)."""
        return self._since if self._key is not None else None

    def mark(self, key: Hashable) -> None:
        """``key`` has been acted on already: do not report it again."""
        self._key = key
        self._reported = key
        self.stable = key

    def reset(self) -> None:
        """Forget the last report, so the current meaning is reported again once settled."""
        self._reported = None
        self._key = None
        self._frames = 0
        self._held, self._last = 0.0, None
        self.stable = None
