"""Shared helpers for the dice tests: fast settings, emulated hubs, and waiting for events.

Nothing here sleeps to synchronise: tests wait for the event they expect (with a generous
timeout that only matters when something is broken) or for a marker sent after the thing whose
absence they check.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from typing import Any, TypeVar

import pytest

from nardy.device.emulator import HubConfig, HubEmulator
from nardy.device.events import DiceEvent
from nardy.device.serial_reader import ReaderConfig, SerialDiceReader

E = TypeVar("E")

WAIT = 10.0
"""Longest wait for an expected event; reached only when something is broken."""

FAST = ReaderConfig(
    heartbeat_timeout=1.0,
    hello_interval=0.1,
    backoff_initial=0.01,
    backoff_max=0.05,
    poll_interval=0.01,
)


class EventLog:
    """A queue of events with waits for the next one of a kind; keeps everything it saw."""

    def __init__(self) -> None:
        self.queue: queue.Queue[DiceEvent] = queue.Queue()
        self.seen: list[DiceEvent] = []

    def next(self, kind: type[E], timeout: float = WAIT, **fields: Any) -> E:
        """The next event of type ``kind`` (with these field values), skipping others."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                event = self.queue.get(timeout=max(0.0, left))
            except queue.Empty:
                raise AssertionError(
                    f"no {kind.__name__} {fields or ''} within {timeout} s; saw {self.seen}"
                ) from None
            self.seen.append(event)
            if isinstance(event, kind) and all(getattr(event, k) == v for k, v in fields.items()):
                return event

    def since(self, start: int) -> list[DiceEvent]:
        return self.seen[start:]

    def drain(self) -> list[DiceEvent]:
        while True:
            try:
                self.seen.append(self.queue.get_nowait())
            except queue.Empty:
                return self.seen


@pytest.fixture
def events() -> EventLog:
    return EventLog()


@pytest.fixture
def hub() -> Iterator[HubEmulator]:
    with HubEmulator(HubConfig(device_id="tower-1", heartbeat_interval=0.05), seed=7) as emulator:
        yield emulator


@pytest.fixture
def reader(hub: HubEmulator, events: EventLog) -> Iterator[SerialDiceReader]:
    with SerialDiceReader(hub.path, events.queue, config=FAST) as dice_reader:
        yield dice_reader
