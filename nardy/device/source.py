"""What every dice source has in common: start, stop, and events delivered to a sink.

A sink is a callable taking an event, or a :class:`queue.Queue` (or :class:`queue.SimpleQueue`)
the events are put on. Callables run in the source's thread, so they should be quick; a queue
hands events to another thread safely.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Protocol, Self, TypeAlias

from nardy.device.events import DiceEvent, ProtocolError

__all__ = ["DiceSource", "EventSink", "ThreadedSource", "as_callback"]

logger = logging.getLogger(__name__)

EventSink: TypeAlias = "Callable[[DiceEvent], object] | queue.Queue[DiceEvent] | queue.SimpleQueue[DiceEvent]"


def as_callback(sink: EventSink) -> Callable[[DiceEvent], object]:
    """The function that delivers an event to ``sink``."""
    if isinstance(sink, (queue.Queue, queue.SimpleQueue)):
        return sink.put
    if not callable(sink):
        raise TypeError(f"an event sink is a callable or a queue, got {sink!r}")
    return sink


class DiceSource(Protocol):
    """Anything that reports dice events to its sink between :meth:`start` and :meth:`stop`."""

    def start(self) -> None:
        """Begin reporting events."""

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reporting events and release everything held (ports, threads, files)."""


class ThreadedSource:
    """A dice source whose work runs in its own thread.

    Subclasses implement :meth:`_main`, which must return soon after :attr:`_stopping` is set.
    If it raises, the exception is kept in :attr:`failure` and reported to the sink as a
    :class:`ProtocolError` ``source failed``: errors in the thread always reach the owner.
    """

    thread_name = "dice-source"

    def __init__(self, sink: EventSink) -> None:
        self._deliver = as_callback(sink)
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._failure: BaseException | None = None

    @property
    def failure(self) -> BaseException | None:
        """The exception that ended the source's thread, if one did."""
        return self._failure

    @property
    def running(self) -> bool:
        """Whether the source's thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the thread. A source starts once."""
        if self._thread is not None:
            raise RuntimeError(f"{self!r} was started already")
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to finish and wait for it (at most ``timeout`` seconds)."""
        self._stopping.set()
        self._wake()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
            if thread.is_alive():
                raise TimeoutError(f"{self!r} did not stop within {timeout} s")

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end by itself; return whether it has ended."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def _emit(self, event: DiceEvent) -> None:
        self._deliver(event)

    def _wake(self) -> None:
        """Make a blocked :meth:`_main` notice :attr:`_stopping` (override where needed)."""

    def _main(self) -> None:
        raise NotImplementedError

    def _cleanup(self) -> None:
        """Release what :meth:`_main` held; runs in the thread, even after a failure."""

    def _run(self) -> None:
        try:
            self._main()
        except BaseException as exc:
            self._failure = exc
            logger.error("%r failed", self, exc_info=exc)
            try:
                self._deliver(ProtocolError("source failed", f"{type(exc).__name__}: {exc}"))
            except BaseException as again:  # the sink itself is what failed
                logger.error("could not report the failure of %r", self, exc_info=again)
        finally:
            self._cleanup()
