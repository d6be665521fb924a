"""The dashboard's running parts for one app: the mode, the snapshot viewers get, live updates, hints.

:meth:`Dashboard.snapshot` is the referee's :meth:`~nardy.referee.session.Referee.state` plus what
the dashboard adds: the mode, which optional services exist, the hint, the calibration profile.
In referee mode the legal plays and hints are left out, so nothing on any screen helps a player.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from nardy.referee.session import Referee
from nardy.rules import Position, Roll
from nardy.web.hints import HintWorker
from nardy.web.services import MODES, Mode, Services
from nardy.web.sse import Broadcaster

log = logging.getLogger(__name__)


class Dashboard:
    """What one app runs: registered as ``app.extensions["nardy"]``."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.settings = services.settings
        self._mode: Mode = self.settings.mode
        self._lock = threading.Lock()
        self.broadcaster = Broadcaster(
            services.referee.bus,
            self.snapshot,
            queue_size=self.settings.client_queue,
            max_viewers=self.settings.max_viewers,
        )
        self.hints: HintWorker | None = None
        if services.hints is not None:
            self.hints = HintWorker(services.hints, self.broadcaster.poke, self.settings.hint_plays)
        self.calibration_size: tuple[int, int] | None = None
        """Size of the last calibration snapshot (corners are checked against it)."""

    @property
    def referee(self) -> Referee:
        return self.services.referee

    # ------------------------------------------------------------------ mode
    @property
    def mode(self) -> Mode:
        return self._mode

    def set_mode(self, mode: str) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be 'referee' or 'training', not {mode!r}")
        with self._lock:
            changed = mode != self._mode
            self._mode = "training" if mode == "training" else "referee"
        if changed:
            self.broadcaster.poke()

    # ------------------------------------------------------------------ the snapshot
    def snapshot(self) -> dict[str, Any]:
        """Everything a viewer's page draws, JSON-ready."""
        services = self.services
        state: dict[str, Any] = services.referee.state()
        mode = self._mode
        state["mode"] = mode
        state["services"] = services.available()
        state["camera"] = {**state.get("camera", {}), "present": services.camera is not None}
        state["profile"] = self._profile()
        state["hint"] = None
        if mode == "referee":
            state["legal"] = []
        elif self.hints is not None:
            state["hint"] = self._hint(state)
        return state

    def _hint(self, state: dict[str, Any]) -> dict[str, Any] | None:
        turn = state.get("turn")
        if turn is None or not state.get("legal") or self.hints is None:
            return None
        try:
            position = Position.from_json(state["position"])
            roll = Roll(*turn["roll"])
        except (KeyError, TypeError, ValueError) as exc:
            log.warning("no hint for this state: %s", exc)
            return None
        return self.hints.lookup(position, roll, bool(turn.get("first_turn")))

    def _profile(self) -> str | None:
        calibration = self.services.calibration
        if calibration is None:
            return None
        try:
            return calibration.current_profile()
        except Exception as exc:  # the page shows no profile rather than failing
            log.warning("could not ask for the current profile: %s", exc)
            return None

    # ------------------------------------------------------------------ life cycle
    def close(self) -> None:
        """Stop live updates and the hint worker; open streams end."""
        self.broadcaster.close()
        if self.hints is not None:
            self.hints.close()
