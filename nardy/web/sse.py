"""Live updates: one subscription to the referee's event bus, fanned out to every viewer.

The bus calls :meth:`Broadcaster._on_event` in the referee's thread, with the referee's lock held,
so that listener only queues the event and wakes a worker. The worker takes one snapshot per burst
of events, works out which top-level fields changed since the last one and hands the same encoded
message to every viewer's bounded queue. A viewer that falls ``queue_size`` messages behind is
dropped (its stream ends; the browser reconnects and starts again from a full snapshot): a slow
phone on bad Wi-Fi never holds up the referee or the other viewers.

Messages are Server-Sent Events of type ``state``, with ``id`` the broadcaster's revision::

    {"rev": 7, "full": {...snapshot...}}                                   # first, on connect
    {"rev": 8, "base": 7, "version": 41, "changed": {"alerts": [...]}, "events": [...]}

``base`` is the revision the change applies to; a viewer whose revision differs reconnects.
``version`` is the referee's event number in the snapshot. Idle streams get a comment line every
``heartbeat`` seconds, so a vanished viewer is noticed and the request thread freed.
"""

from __future__ import annotations

import json
import logging
import math
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from nardy.referee.events import Event, EventBus

log = logging.getLogger(__name__)

MAX_EVENTS_PER_MESSAGE = 50
"""A burst longer than this sends only its last events (the snapshot has the state anyway)."""


class ViewerClosed(Exception):
    """The stream is over: the viewer was dropped or the broadcaster closed."""


class TooManyViewers(RuntimeError):
    """The viewer limit is reached."""


class Viewer:
    """One live-update stream's bounded queue of encoded messages."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: deque[str] = deque()
        self._cond = threading.Condition()
        self.open = True
        self.dropped = False

    def offer(self, message: str) -> bool:
        """Queue ``message``; False (and the viewer is dropped) when it is ``limit`` behind."""
        with self._cond:
            if not self.open:
                return False
            if len(self._items) >= self.limit:
                self._items.clear()
                self.open = False
                self.dropped = True
                self._cond.notify_all()
                return False
            self._items.append(message)
            self._cond.notify_all()
            return True

    def take(self, timeout: float) -> str | None:
        """The next message; None after ``timeout`` seconds of nothing; ViewerClosed when over."""
        with self._cond:
            if not self._items and self.open:
                self._cond.wait(timeout)
            if self._items:
                return self._items.popleft()
            if not self.open:
                raise ViewerClosed
            return None

    def close(self) -> None:
        with self._cond:
            self.open = False
            self._cond.notify_all()

    def __len__(self) -> int:
        return len(self._items)


def _finite(value: Any) -> Any:
    """``value`` with infinities and NaNs as None: browsers' JSON has no such numbers."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def json_text(data: Any) -> str:
    """Compact JSON a browser can parse (a referee's margin may be infinite, for instance)."""
    try:
        return json.dumps(data, separators=(",", ":"), default=str, allow_nan=False)
    except ValueError:
        return json.dumps(_finite(data), separators=(",", ":"), default=str, allow_nan=False)


def sse_message(kind: str, data: dict[str, Any], ident: int | None = None) -> str:
    """One Server-Sent Event (the JSON is one line, so one ``data:`` field)."""
    head = f"id: {ident}\n" if ident is not None else ""
    text = json_text(data)
    return f"{head}event: {kind}\ndata: {text}\n\n"


class Broadcaster:
    """Fans the referee's events out to live-update viewers as snapshots and changes."""

    def __init__(
        self,
        bus: EventBus,
        snapshot: Callable[[], dict[str, Any]],
        *,
        queue_size: int = 64,
        max_viewers: int = 200,
    ) -> None:
        self._bus = bus
        self._snapshot = snapshot
        self.queue_size = queue_size
        self.max_viewers = max_viewers
        self._cond = threading.Condition()  # guards the worker's inbox
        self._pending: list[Event] = []
        self._dirty = False
        self._closed = False
        self._lock = threading.Lock()  # guards the viewers, the last snapshot and the revision
        self._viewers: set[Viewer] = set()
        self._last: dict[str, Any] | None = None
        self._rev = 0
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.published = 0
        """Messages published (for the benchmark and tests)."""
        self.dropped = 0
        """Viewers dropped for falling behind."""

    # ------------------------------------------------------------------ life cycle
    def start(self) -> None:
        """Subscribe to the bus and start the worker (idempotent)."""
        with self._cond:
            if self._thread is not None or self._closed:
                return
            self._unsubscribe = self._bus.subscribe(self._on_event)
            self._thread = threading.Thread(target=self._run, name="nardy-web-broadcaster", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Unsubscribe, end every stream and stop the worker."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            unsubscribe, self._unsubscribe = self._unsubscribe, None
            thread = self._thread
        if unsubscribe is not None:
            unsubscribe()
        if thread is not None:
            thread.join(timeout=5)
        with self._lock:
            viewers = list(self._viewers)
            self._viewers.clear()
        for viewer in viewers:
            viewer.close()

    @property
    def closed(self) -> bool:
        return self._closed

    # ------------------------------------------------------------------ input
    def _on_event(self, event: Event) -> None:
        # the referee's thread, its lock held: only queue and wake
        with self._cond:
            self._pending.append(event)
            self._dirty = True
            self._cond.notify()

    def poke(self) -> None:
        """Publish a new snapshot although the referee emitted nothing (mode switch, hint ready)."""
        with self._cond:
            self._dirty = True
            self._cond.notify()

    # ------------------------------------------------------------------ viewers
    def connect(self) -> Viewer:
        """A new viewer, whose queue starts with the full current snapshot."""
        self.start()
        viewer = Viewer(self.queue_size)
        with self._lock:
            if self._closed:
                viewer.close()
                return viewer
            if len(self._viewers) >= self.max_viewers:
                raise TooManyViewers(f"{self.max_viewers} viewers are watching already")
            if self._last is None:
                self._last = self._snapshot()
                self._rev += 1
            viewer.offer(sse_message("state", {"rev": self._rev, "full": self._last}, self._rev))
            self._viewers.add(viewer)
        return viewer

    def disconnect(self, viewer: Viewer) -> None:
        viewer.close()
        with self._lock:
            self._viewers.discard(viewer)

    @property
    def viewers(self) -> int:
        with self._lock:
            return len(self._viewers)

    def drop_all(self) -> None:
        """End every stream now (the browsers reconnect); used after a restore and by tests."""
        with self._lock:
            viewers = list(self._viewers)
            self._viewers.clear()
        for viewer in viewers:
            viewer.close()

    def stream(self, viewer: Viewer, heartbeat: float) -> Iterator[str]:
        """The text of one viewer's event stream, until it is dropped or the broadcaster closes."""
        try:
            yield "retry: 1000\n\n"
            while True:
                try:
                    message = viewer.take(heartbeat)
                except ViewerClosed:
                    return
                yield message if message is not None else ": heartbeat\n\n"
        finally:
            self.disconnect(viewer)

    # ------------------------------------------------------------------ the worker
    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._dirty and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                self._dirty = False
                events, self._pending = self._pending, []
            try:
                self.publish(events)
            except Exception:  # a failing snapshot must not end live updates for good
                log.exception("could not publish a dashboard update")

    def publish(self, events: list[Event]) -> None:
        """Take a snapshot and send what changed (with ``events``) to every viewer."""
        snap = self._snapshot()
        with self._lock:
            if self._last is None:
                changed = snap
            else:
                changed = {k: v for k, v in snap.items() if self._last.get(k) != v}
            if not changed and not events:
                return
            base = self._rev
            self._rev += 1
            self._last = snap
            body: dict[str, Any] = {
                "rev": self._rev,
                "base": base,
                "version": snap.get("version"),
                "changed": changed,
                "events": [e.to_json() for e in events[-MAX_EVENTS_PER_MESSAGE:]],
            }
            if len(events) > MAX_EVENTS_PER_MESSAGE:
                body["events_skipped"] = len(events) - MAX_EVENTS_PER_MESSAGE
            message = sse_message("state", body, self._rev)
            self.published += 1
            slow = [v for v in self._viewers if not v.offer(message)]
            for viewer in slow:
                self._viewers.discard(viewer)
                self.dropped += 1
        if slow:
            log.info("dropped %d slow dashboard viewer(s)", len(slow))
