"""Read a dice hub over any pyserial URL, and keep reading through whatever a table does to it.

:class:`SerialDiceReader` opens ``/dev/ttyUSB0``, ``loop://``, ``socket://host:port``,
``hwgrep://...`` or a pseudo-terminal with :func:`serial.serial_for_url`, says ``HELLO?``, and
delivers events from its own thread. When the port fails (unplugged) or the hub goes silent
(no valid line for :attr:`ReaderConfig.heartbeat_timeout`) it reports :class:`Disconnected`,
closes the port, backs off and reopens the same URL; on the way back it says ``HELLO?`` again and
``SYNC`` so a roll thrown meanwhile is not lost, and the next :class:`Connected` carries the
downtime.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import serial

from nardy.device.decoder import HubDecoder
from nardy.device.events import DiceEvent, Disconnected, ProtocolError
from nardy.device.protocol import DEFAULT_BAUDRATE, BadLine, Message, Parser
from nardy.device.source import EventSink, ThreadedSource

__all__ = ["PortUnavailable", "ReaderConfig", "ReaderStats", "SerialDiceReader", "SerialPort", "open_port"]

logger = logging.getLogger(__name__)


class PortUnavailable(OSError):
    """The port could not be opened and the reader was told not to wait for it."""


@dataclass(frozen=True)
class ReaderConfig:
    """How a :class:`SerialDiceReader` behaves. Times are in seconds."""

    baudrate: int = DEFAULT_BAUDRATE
    """Line speed for real serial ports (ignored by ``loop://`` and ``socket://``)."""
    lenient: bool = False
    """Accept lines without a checksum (for a person typing into a terminal)."""
    heartbeat_timeout: float = 5.0
    """Silence after which the hub counts as lost; hubs send ``HB`` at least every 2 s."""
    hello_interval: float = 1.0
    """How often ``HELLO?`` is repeated until the hub answers (early bytes can be lost)."""
    hello_attempts: int = 5
    """How many times ``HELLO?`` is sent on each connection."""
    backoff_initial: float = 0.25
    """Wait before reopening a lost port; doubles (``backoff_factor``) after each failure."""
    backoff_factor: float = 2.0
    backoff_max: float = 5.0
    """The longest wait between attempts to reopen."""
    poll_interval: float = 0.05
    """Longest a read blocks; bounds how fast :meth:`SerialDiceReader.stop` returns."""
    write_timeout: float = 1.0
    """A write that takes longer means the hub is stuck: the port is reopened."""
    wait_for_port: bool = True
    """Keep trying when the very first open fails (the hub may be plugged in later). When false,
    the reader reports the error and ends, with :class:`PortUnavailable` as its failure."""
    error_limit: int = 20
    """Protocol errors reported per ``error_window``; the rest are counted and summarised, so
    a hub that floods garbage cannot flood the owner."""
    error_window: float = 1.0

    def __post_init__(self) -> None:
        for name in (
            "heartbeat_timeout",
            "hello_interval",
            "backoff_initial",
            "backoff_max",
            "poll_interval",
            "write_timeout",
            "error_window",
        ):
            value = getattr(self, name)
            if not value > 0:
                raise ValueError(f"ReaderConfig.{name} must be positive, got {value!r}")
        if self.baudrate <= 0:
            raise ValueError(f"ReaderConfig.baudrate must be positive, got {self.baudrate!r}")
        if self.backoff_factor < 1:
            raise ValueError(f"ReaderConfig.backoff_factor must be at least 1, got {self.backoff_factor!r}")
        if self.hello_attempts < 1 or self.error_limit < 1:
            raise ValueError("ReaderConfig.hello_attempts and error_limit must be at least 1")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ReaderConfig:
        """Build from a dict loaded from TOML or JSON; unknown keys are an error."""
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown reader settings {unknown}; known: {sorted(known)}")
        return cls(**data)


@dataclass(frozen=True)
class ReaderStats:
    """Counters since the reader started."""

    messages: int = 0
    """Valid lines received."""
    bad_lines: int = 0
    """Lines dropped (bad checksum, malformed, too long, noise, ...)."""
    duplicates: int = 0
    """Resent rolls dropped because they had been seen."""
    suppressed_errors: int = 0
    """Protocol errors counted but not reported because too many came at once."""
    connections: int = 0
    """Times the port was opened."""
    disconnections: int = 0
    """Times a working link was lost."""


class SerialPort(Protocol):
    """What the reader needs of an open port (any pyserial port has it)."""

    @property
    def in_waiting(self) -> int: ...

    def read(self, size: int = 1) -> bytes: ...

    def write(self, data: bytes, /) -> int | None: ...

    def close(self) -> None: ...


PortOpener = Callable[[str, ReaderConfig], SerialPort]


def open_port(url: str, config: ReaderConfig) -> SerialPort:
    """Open ``url`` the way the reader does (the default ``opener``)."""
    return serial.serial_for_url(
        url, baudrate=config.baudrate, timeout=config.poll_interval, write_timeout=config.write_timeout
    )


class _LinkLost(Exception):
    """The current connection ended; the reason is the message."""


class SerialDiceReader(ThreadedSource):
    """Read one dice hub at ``url`` and deliver its events to ``sink``.

    ``name`` tags events until the hub says its id (default: the URL). ``clock`` gives event
    timestamps and measures silence. ``opener`` opens the port (for tests; default
    :func:`open_port`). Use it as a context manager, or call :meth:`start` and :meth:`stop`.
    """

    thread_name = "dice-reader"

    def __init__(
        self,
        url: str,
        sink: EventSink,
        *,
        config: ReaderConfig | None = None,
        name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        opener: PortOpener = open_port,
    ) -> None:
        super().__init__(sink)
        self.url = url
        self.config = config if config is not None else ReaderConfig()
        self.clock = clock
        self._opener = opener
        self._decoder = HubDecoder(fallback_device=name or url, port=url, clock=clock)
        self._port: SerialPort | None = None
        self._port_lock = threading.Lock()
        self._messages = 0
        self._bad_lines = 0
        self._connections = 0
        self._disconnections = 0
        self._suppressed = 0
        self._window_start = 0.0
        self._window_errors = 0
        self._window_suppressed = 0

    def __repr__(self) -> str:
        return f"SerialDiceReader({self.url!r})"

    @property
    def device(self) -> str:
        """The hub's id once it said HELLO, else the reader's name."""
        return self._decoder.device

    @property
    def connected(self) -> bool:
        """Whether the hub has said HELLO on the current connection."""
        return self._port is not None and self._decoder.hello_seen

    def stats(self) -> ReaderStats:
        """A snapshot of the counters."""
        return ReaderStats(
            messages=self._messages,
            bad_lines=self._bad_lines,
            duplicates=self._decoder.duplicates,
            suppressed_errors=self._suppressed,
            connections=self._connections,
            disconnections=self._disconnections,
        )

    def send(self, message: Message) -> None:
        """Send a command to the hub now (``SYNC``, ``PING``, ...).

        Raises :class:`serial.SerialException` when there is no open port or the write fails.
        """
        with self._port_lock:
            if self._port is None:
                raise serial.SerialException(f"{self.url}: not connected")
            self._port.write(message.encode())

    # -- the thread --------------------------------------------------------------------------

    def _main(self) -> None:
        config = self.config
        delay = config.backoff_initial
        first_attempt = True
        last_open_error: str | None = None
        lost_at: float | None = None
        while not self._stopping.is_set():
            try:
                port = self._opener(self.url, config)
            except ValueError as exc:  # a malformed URL: retrying cannot help
                self._emit(ProtocolError("cannot open port", f"{self.url}: {exc}", self.device))
                raise PortUnavailable(f"cannot open {self.url}: {exc}") from exc
            except (serial.SerialException, OSError) as exc:
                if first_attempt and not config.wait_for_port:
                    self._emit(ProtocolError("cannot open port", str(exc), self.device))
                    raise PortUnavailable(str(exc)) from exc
                if str(exc) != last_open_error:  # say it once, not on every retry
                    last_open_error = str(exc)
                    self._emit(ProtocolError("cannot open port", f"{exc}; retrying", self.device))
                first_attempt = False
                if self._stopping.wait(delay):
                    break
                delay = min(delay * config.backoff_factor, config.backoff_max)
                continue
            first_attempt = False
            last_open_error = None
            with self._port_lock:
                self._port = port
            self._connections += 1
            try:
                reason = self._session(port, None if lost_at is None else self.clock() - lost_at)
            finally:
                with self._port_lock:
                    self._port = None
                try:
                    port.close()
                except (serial.SerialException, OSError) as exc:
                    logger.debug("closing %s: %s", self.url, exc)
            if reason is not None:  # the link was up and got lost
                lost_at = self.clock()
                if not self._stopping.is_set():
                    self._disconnections += 1
                self._emit(Disconnected(self.device, reason, timestamp=lost_at))
                delay = config.backoff_initial
            if self._stopping.wait(delay):
                break
            delay = min(delay * config.backoff_factor, config.backoff_max)

    def _session(self, port: SerialPort, downtime: float | None) -> str | None:
        """Talk to an open port until the link is lost or the reader stops.

        Returns why a working link was lost, or ``None`` when it never worked (no valid line
        since the port opened) and nothing needs reporting.
        """
        config = self.config
        parser = Parser(lenient=config.lenient)
        decoder = self._decoder
        decoder.connection_opened(downtime)
        reconnecting = downtime is not None
        opened = last_valid = self.clock()
        alive = False
        hellos_sent = 0
        next_hello = opened
        try:
            while True:
                if self._stopping.is_set():
                    self._flush_suppressed()
                    if alive:
                        return "stopped"
                    return None
                now = self.clock()
                if not decoder.hello_seen and hellos_sent < config.hello_attempts and now >= next_hello:
                    self._write(port, Message("HELLO?"))
                    hellos_sent += 1
                    next_hello = now + config.hello_interval
                data = port.read(max(1, port.in_waiting))
                if data:
                    for item in parser.feed(data):
                        if isinstance(item, Message):
                            last_valid = self.clock()
                            if not alive:
                                alive = True
                                if reconnecting:  # ask for a roll thrown while we were away
                                    self._write(port, Message("SYNC"))
                        self._count(item)
                        for event in decoder.decode(item):
                            self._report(event)
                self._flush_suppressed()
                silent = self.clock() - last_valid
                if silent > config.heartbeat_timeout:
                    if alive:
                        return f"silent for {silent:.1f} s"
                    logger.debug("%s: nothing valid for %.1f s after opening; reopening", self.url, silent)
                    return None
        except (serial.SerialException, OSError) as exc:
            for item in parser.finish():
                self._count(item)
                for event in decoder.decode(item):
                    self._report(event)
            self._flush_suppressed()
            return f"port lost: {exc}" if alive else None

    def _write(self, port: SerialPort, message: Message) -> None:
        with self._port_lock:
            port.write(message.encode())

    def _count(self, item: Message | BadLine) -> None:
        if isinstance(item, Message):
            self._messages += 1
        else:
            self._bad_lines += 1

    def _report(self, event: DiceEvent) -> None:
        """Deliver ``event``, holding back protocol errors beyond the limit per window."""
        if isinstance(event, ProtocolError):
            now = self.clock()
            if now - self._window_start >= self.config.error_window:
                self._flush_suppressed(force=True)
                self._window_start = now
                self._window_errors = 0
            if self._window_errors >= self.config.error_limit:
                self._suppressed += 1
                self._window_suppressed += 1
                return
            self._window_errors += 1
        self._emit(event)

    def _flush_suppressed(self, *, force: bool = False) -> None:
        """Report how many errors were held back, once their window is over."""
        if not self._window_suppressed:
            return
        if not force and self.clock() - self._window_start < self.config.error_window:
            return
        count, self._window_suppressed = self._window_suppressed, 0
        self._emit(
            ProtocolError(
                "errors suppressed",
                f"{count} more protocol errors in {self.config.error_window:g} s were not reported",
                self.device,
            )
        )
