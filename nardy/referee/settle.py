"""Settling: a reading counts only once the board has been still, with no hand in view."""

from __future__ import annotations

from nardy.referee.config import RefereeConfig
from nardy.referee.reading import BoardReading


class Settler:
    """Fed every reading with its time; says when a new settled reading is ready.

    A reading is settled when the board has shown the same most-likely reading, with nothing
    moving over it, for ``settle_seconds`` and at least ``min_settled_frames`` frames. Each
    settled reading is reported once; the board must change (or be disturbed) before the same
    reading is reported again.
    """

    def __init__(self, config: RefereeConfig) -> None:
        self.config = config
        self._key: object = None
        self._since = 0.0
        self._frames = 0
        self._reported: object = None
        self.disturbed_since: float | None = None
        """When the board last stopped being settled (None while it is settled)."""
        self.where: tuple[str, ...] = ()

    def feed(self, reading: BoardReading, t: float) -> BoardReading | None:
        """The reading if it has just become settled, else None."""
        if not reading.settled:
            if self.disturbed_since is None:
                self.disturbed_since = t
            self.where = reading.unsettled
            self._key = None
            self._frames = 0
            self._reported = None
            return None
        self.disturbed_since = None
        self.where = ()
        key = reading.key()
        if key != self._key:
            self._key = key
            self._since = t
            self._frames = 1
            return None
        self._frames += 1
        if (
            key != self._reported
            and self._frames >= self.config.min_settled_frames
            and t - self._since >= self.config.settle_seconds
        ):
            self._reported = key
            return reading
        return None

    def reset(self) -> None:
        """Forget the last report, so the current reading is reported again once settled."""
        self._reported = None
