"""Hints off the request path: one worker thread ranks the plays of the current roll.

An engine may take a second (GNU Backgammon at 2-ply); the live page must not wait for it. The
snapshot asks :meth:`HintWorker.lookup`, which answers at once from a small cache or with
``{"status": "pending"}`` and queues the question; when the answer is ready the worker calls
``on_ready`` (the broadcaster's poke) and the next snapshot carries it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from nardy.rules import Position, Roll
from nardy.web.services import HintEngine, HintFactory

log = logging.getLogger(__name__)

Key = tuple[str, bool, int, int]
"""(position JSON text with the side to move, first turn, die, die)."""

CACHE_SIZE = 32


class HintWorker:
    """Ranks plays in a background thread and keeps the last answers."""

    def __init__(self, factory: HintFactory, on_ready: Callable[[], None], plays: int = 12) -> None:
        self._factory = factory
        self._on_ready = on_ready
        self._plays = plays
        self._engines: dict[str, HintEngine] = {}
        self._cache: OrderedDict[Key, dict[str, Any]] = OrderedDict()
        self._wanted: tuple[Key, Position, Roll, bool] | None = None
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._busy = False

    def lookup(self, position: Position, roll: Roll, first_turn: bool) -> dict[str, Any]:
        """The hint for the side to move in ``position``: ready, pending or an error."""
        key: Key = (position.json_text(), first_turn, roll.high, roll.low)
        with self._cond:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return found
            if self._closed:
                return {"status": "error", "error": "the hint worker has stopped"}
            if self._wanted is None or self._wanted[0] != key:
                self._wanted = (key, position, roll, first_turn)
                self._cond.notify_all()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="nardy-web-hints", daemon=True)
                self._thread.start()
        return {"status": "pending"}

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no question is queued or being answered; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._wanted is None and not self._busy, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None:
            thread.join(timeout=10)

    def _run(self) -> None:
        while True:
            with self._cond:
                while self._wanted is None and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                assert self._wanted is not None
                key, position, roll, first_turn = self._wanted
                self._busy = True
            answer = self._rank(position, roll, first_turn)
            with self._cond:
                self._busy = False
                self._cache[key] = answer
                while len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
                if self._wanted is not None and self._wanted[0] == key:
                    self._wanted = None
                closed = self._closed
                self._cond.notify_all()
            if not closed:
                self._on_ready()

    def _rank(self, position: Position, roll: Roll, first_turn: bool) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            engine = self._engines.get(position.variant)
            if engine is None:
                engine = self._factory(position.variant)
                self._engines[position.variant] = engine
            data = engine.hint(position, roll, first_turn).to_json()
        except Exception as exc:  # an engine failure is shown on the page, not a crash
            log.warning("the hint engine failed on %s %s: %s", position.json_text(), roll, exc)
            return {"status": "error", "error": f"{type(exc).__name__}: {exc}"}
        plays = []
        for entry in list(data.get("plays") or [])[: self._plays]:
            plays.append(
                {
                    "play": entry.get("play"),
                    "equity": entry.get("equity"),
                    "loss": entry.get("loss"),
                    "chances": entry.get("chances"),
                }
            )
        return {
            "status": "ready",
            "engine": data.get("engine") or engine.name,
            "note": data.get("note"),
            "seconds": round(time.perf_counter() - start, 3),
            "plays": plays,
        }
