"""A dice hub you can run without hardware: a pseudo-terminal (or a TCP port) that talks the protocol.

:class:`HubState` is what the firmware knows (boot id, throw number, last roll, battery) and how it
answers the host; it is pure. :class:`HubEmulator` serves it on a pseudo-terminal, behind a
stable symbolic link so that a simulated unplug and replug (a new pty) looks to a reader like a
USB device that vanished and came back at the same path. With ``tcp=True`` it serves
``socket://127.0.0.1:PORT`` instead.

The hub answers ``HELLO?`` with ``HELLO`` and ``BAT``, ``SYNC`` with its last roll (``replay=1``),
``PING`` with ``HB``, a bad line with ``ERR``; it sends ``HB`` every ``heartbeat_interval``.
"""

from __future__ import annotations

import errno
import heapq
import itertools
import logging
import os
import queue
import random
import select
import shutil
import socket
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self, TypeVar

from nardy.device.events import check_dice
from nardy.device.protocol import PROTOCOL_VERSION, BadLine, FrameError, Message, Parser

__all__ = ["HubConfig", "HubEmulator", "HubState"]

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True)
class HubConfig:
    """How an emulated hub behaves. Times are in seconds."""

    device_id: str = "emu-1"
    """The id it gives in HELLO."""
    fw: str = "emulator-1"
    """The firmware version it gives in HELLO."""
    heartbeat_interval: float = 1.0
    """Time between two ``HB`` lines (the protocol asks for at most 2 s)."""
    settle: float = 0.0
    """Time between ``ROLLING`` and ``ROLL`` (a real tower takes about half a second)."""
    battery: int = 100
    """The battery level it starts with, in percent."""
    proto: int = PROTOCOL_VERSION
    command_timeout: float = 5.0
    """Longest a call such as :meth:`HubEmulator.roll` waits for the emulator's thread."""
    raw_write_timeout: float = 5.0
    """Longest :meth:`HubEmulator.send_raw` waits for a slow reader before dropping bytes."""

    def __post_init__(self) -> None:
        try:
            Message.make("HELLO", proto=self.proto, id=self.device_id, fw=self.fw, boot="0" * 8)
        except FrameError as exc:
            raise ValueError(
                f"device_id {self.device_id!r} or fw {self.fw!r} cannot go in a HELLO: {exc}"
            ) from exc
        if not self.heartbeat_interval > 0 or self.settle < 0:
            raise ValueError("heartbeat_interval must be positive and settle not negative")
        if not 0 <= self.battery <= 100:
            raise ValueError(f"battery must be 0..100, got {self.battery}")


class HubState:
    """The firmware's memory and its answers to the host. ``rng`` throws the dice and names boots."""

    def __init__(self, config: HubConfig, rng: random.Random) -> None:
        self.config = config
        self.rng = rng
        self.boot = ""
        self.seq = 0
        """The number of the last throw (0 before the first)."""
        self.last_roll: Message | None = None
        self.last_dice: tuple[int, int] | None = None
        self.battery = config.battery
        self.reboot()

    def reboot(self) -> None:
        """Power cycle: a new boot id, throws counted from 1 again, no last roll."""
        self.boot = f"{self.rng.getrandbits(32):08x}"
        self.seq = 0
        self.last_roll = None
        self.last_dice = None

    def hello(self) -> list[Message]:
        return [
            Message.make(
                "HELLO",
                proto=self.config.proto,
                id=self.config.device_id,
                fw=self.config.fw,
                boot=self.boot,
                seq=self.seq,
            ),
            Message.make("BAT", pct=self.battery),
        ]

    def throw(self, dice: tuple[int, int] | None = None) -> Message:
        """A new throw (random unless ``dice`` is given): the ``ROLL`` line to send."""
        if dice is None:
            dice = (self.rng.randint(1, 6), self.rng.randint(1, 6))
        first, second = check_dice(dice)
        self.seq += 1
        self.last_dice = (first, second)
        self.last_roll = Message.make("ROLL", seq=self.seq, d=f"{first}-{second}")
        return self.last_roll

    def answer(self, item: Message | BadLine) -> list[Message]:
        """What the hub sends back for a line from the host."""
        if isinstance(item, BadLine):
            return [Message.make("ERR", msg=item.message)]
        if item.type == "HELLO?":
            return self.hello()
        if item.type == "SYNC":
            if self.last_roll is None:
                return []
            return [Message(self.last_roll.type, (*self.last_roll.fields, ("replay", "1")))]
        if item.type == "PING":
            return [Message("HB")]
        return []


class HubEmulator:
    """Serve an emulated hub on a pseudo-terminal (default) or on TCP, in a thread.

    ``link`` is where the pty's stable path goes (default: a new temporary directory). With
    ``tcp=True`` the hub listens on ``host``:``port`` (0 picks a free port) and :attr:`path` is
    the ``socket://`` URL. Calls such as :meth:`roll` return once the thread has done them.
    """

    def __init__(
        self,
        config: HubConfig | None = None,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        link: str | os.PathLike[str] | None = None,
        tcp: bool = False,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.config = config if config is not None else HubConfig()
        self.state = HubState(self.config, rng if rng is not None else random.Random(seed))
        self._tcp = tcp
        self._host, self._port = host, port
        self._link = Path(link) if link is not None else None
        self._tempdir: str | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._commands: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = -1, -1
        self._channel: int | None = None  # the fd the host is on: pty master or TCP connection
        self._slave: int | None = None
        self._listener: socket.socket | None = None
        self._connection: socket.socket | None = None
        self._generation = 0
        self._plugged = False
        self._silent = False
        self._parser = Parser()
        self._timers: list[tuple[float, int, Callable[[], object]]] = []
        self._timer_ids = itertools.count()
        self._host_said_hello = threading.Event()
        self._received: list[str] = []
        self._lock = threading.Lock()
        self._activity = threading.Condition(self._lock)
        self.heartbeats = 0
        """How many ``HB`` lines were sent to a host."""
        self.dropped_bytes = 0
        """Bytes thrown away because nobody was reading (as a UART with nobody listening)."""

    def __repr__(self) -> str:
        return f"HubEmulator({self.config.device_id!r})"

    @property
    def path(self) -> str:
        """What a reader opens: the pty's stable link, or the ``socket://`` URL."""
        if self._tcp:
            return f"socket://{self._host}:{self._port}"
        if self._link is None:
            raise RuntimeError("the emulator is not started")
        return str(self._link)

    @property
    def received(self) -> list[str]:
        """The types of the host's messages so far (``HELLO?``, ``SYNC``, ...), oldest first."""
        with self._lock:
            return list(self._received)

    def start(self) -> None:
        """Create the port and start answering. An emulator starts once."""
        if self._thread is not None:
            raise RuntimeError(f"{self!r} was started already")
        if not self._tcp and self._link is None:
            self._tempdir = tempfile.mkdtemp(prefix="nardy-dice-")
            self._link = Path(self._tempdir) / self.config.device_id
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)
        try:
            self._plug()
        except BaseException:
            self._cleanup()
            raise
        self._thread = threading.Thread(target=self._serve, name="dice-hub-emulator", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the thread, close the port and remove the link."""
        self._stopping.set()
        thread = self._thread
        if thread is None:
            self._cleanup()
            return
        self._wake()
        thread.join(timeout)
        if thread.is_alive():
            raise TimeoutError(f"{self!r} did not stop within {timeout} s")

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def wait_for_host(self, timeout: float | None = None) -> bool:
        """Wait until a host says ``HELLO?`` (since start or the last replug); return whether one did."""
        return self._host_said_hello.wait(timeout)

    def wait_for(self, command: str, timeout: float | None = None, *, count: int = 1) -> bool:
        """Wait until the host has sent ``command`` (``SYNC``, ``PING``, ...) ``count`` times in all."""
        with self._activity:
            return self._activity.wait_for(lambda: self._received.count(command) >= count, timeout)

    def wait_for_heartbeats(self, count: int, timeout: float | None = None) -> bool:
        """Wait until ``count`` more heartbeats have gone to a host."""
        with self._activity:
            target = self.heartbeats + count
            return self._activity.wait_for(lambda: self.heartbeats >= target, timeout)

    # -- what a person does to the hub -------------------------------------------------------

    def roll(self, dice: tuple[int, int] | None = None) -> tuple[int, int]:
        """Throw the dice (``dice`` fixes the faces): ``ROLLING``, then after ``settle`` ``ROLL``.

        Throws while unplugged or silent are counted and remembered (a battery-powered tower
        keeps going), so ``SYNC`` after a replug returns the last one.
        """
        if dice is not None:
            check_dice(dice)

        def throw() -> tuple[int, int]:
            self._send(Message("ROLLING"))
            message = self.state.throw(dice)
            if self.config.settle > 0:
                self._after(self.config.settle, lambda: self._send(message))
            else:
                self._send(message)
            assert self.state.last_dice is not None
            return self.state.last_dice

        return self._call(throw)

    def rolling(self) -> None:
        """Only ``ROLLING``: the dice are in motion."""
        self._call(lambda: self._send(Message("ROLLING")))

    def tilt(self) -> None:
        """A cocked die: ``TILT``."""
        self._call(lambda: self._send(Message("TILT")))

    def battery(self, pct: int) -> None:
        """Set the battery level and report it."""
        if not 0 <= pct <= 100:
            raise ValueError(f"battery is 0..100 percent, got {pct}")

        def report() -> None:
            self.state.battery = pct
            self._send(Message.make("BAT", pct=pct))

        self._call(report)

    def error(self, text: str) -> None:
        """Report a hub error: ``ERR,msg=text``."""
        message = Message.make("ERR", msg=text)
        self._call(lambda: self._send(message))

    def send_raw(self, data: bytes) -> None:
        """Put ``data`` on the line as it is (line noise, broken frames, floods).

        Waits for a slow reader up to ``raw_write_timeout`` before dropping the rest.
        """
        self._call(lambda: self._write(data, wait=self.config.raw_write_timeout))

    def garbage(self, size: int) -> bytes:
        """Send ``size`` random bytes (from the hub's seeded generator); return them."""
        data = self.state.rng.randbytes(size)
        self.send_raw(data)
        return data

    def unplug(self) -> None:
        """Pull the cable: the port disappears (the pty closes and its link is removed)."""
        self._call(self._unplug)

    def plug(self) -> None:
        """Plug the cable back in: a new port behind the same path."""
        self._call(self._plug)

    def silence(self) -> None:
        """Hang: no heartbeats, no answers, commands from the host are left unread."""
        self._call(lambda: setattr(self, "_silent", True))

    def resume(self) -> None:
        """Stop hanging."""
        self._call(lambda: setattr(self, "_silent", False))

    def reboot(self) -> None:
        """Restart the firmware: a new boot id, throws numbered from 1, and a spontaneous HELLO."""

        def restart() -> None:
            self.state.reboot()
            for message in self.state.hello():
                self._send(message)

        self._call(restart)

    # -- the thread --------------------------------------------------------------------------

    def _call(self, action: Callable[[], T]) -> T:
        if self._thread is None or not self._thread.is_alive():
            raise RuntimeError(f"{self!r} is not running")
        if threading.current_thread() is self._thread:
            return action()
        future: Future[T] = Future()
        self._commands.put((action, future))
        self._wake()
        return future.result(timeout=self.config.command_timeout)

    def _wake(self) -> None:
        with self._lock:
            if self._wake_w < 0:
                return
            try:
                os.write(self._wake_w, b"!")
            except BlockingIOError:  # the pipe is full: the thread has plenty to wake it
                pass

    def _after(self, delay: float, action: Callable[[], object]) -> None:
        heapq.heappush(self._timers, (time.monotonic() + delay, next(self._timer_ids), action))

    def _serve(self) -> None:
        try:
            next_beat = time.monotonic() + self.config.heartbeat_interval
            while not self._stopping.is_set():
                now = time.monotonic()
                deadline = min(next_beat, self._timers[0][0]) if self._timers else next_beat
                watch = [self._wake_r]
                channel, generation = self._channel, self._generation
                if not self._silent:
                    if channel is not None:
                        watch.append(channel)
                    if self._listener is not None:
                        watch.append(self._listener.fileno())
                ready, _, _ = select.select(watch, [], [], max(0.0, deadline - now))
                if self._wake_r in ready:
                    os.read(self._wake_r, 4096)
                    self._run_commands()
                if generation == self._generation and not self._silent:
                    if channel is not None and channel in ready:
                        self._read(channel)
                    if self._listener is not None and self._listener.fileno() in ready:
                        self._accept()
                now = time.monotonic()
                while self._timers and self._timers[0][0] <= now:
                    heapq.heappop(self._timers)[2]()
                if now >= next_beat:
                    if self._send(Message("HB")):
                        with self._activity:
                            self.heartbeats += 1
                            self._activity.notify_all()
                    next_beat = now + self.config.heartbeat_interval
        finally:
            self._run_commands(cancel=True)
            self._cleanup()

    def _run_commands(self, *, cancel: bool = False) -> None:
        while True:
            try:
                action, future = self._commands.get_nowait()
            except queue.Empty:
                return
            if cancel:
                future.set_exception(RuntimeError(f"{self!r} stopped"))
                continue
            try:
                future.set_result(action())
            except Exception as exc:
                future.set_exception(exc)

    def _read(self, channel: int) -> None:
        try:
            data = os.read(channel, 4096)
        except BlockingIOError:
            return
        except OSError as exc:
            if exc.errno != errno.EIO:  # EIO: the pty has no reader at the moment
                logger.debug("emulator read: %s", exc)
                self._hang_up()
            return
        if not data:  # a TCP host went away
            self._hang_up()
            return
        for item in self._parser.feed(data):
            with self._activity:
                self._received.append(item.type if isinstance(item, Message) else f"bad: {item.message}")
                self._activity.notify_all()
            if isinstance(item, Message) and item.type == "HELLO?":
                self._host_said_hello.set()
            for answer in self.state.answer(item):
                self._send(answer)

    def _send(self, message: Message) -> bool:
        return self._write(message.encode(), wait=0.0)

    def _write(self, data: bytes, *, wait: float) -> bool:
        """Write to the host, dropping what cannot go (unplugged, silent, or nobody reading).

        Returns whether all of ``data`` went out.
        """
        channel = self._channel
        if channel is None or self._silent or not self._plugged:
            self.dropped_bytes += len(data)
            return False
        view = memoryview(data)
        deadline = time.monotonic() + wait
        while view:
            try:
                written = os.write(channel, view)
            except BlockingIOError:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([], [channel], [], left)[1]:
                    self.dropped_bytes += len(view)
                    return False
                continue
            except OSError as exc:
                logger.debug("emulator write: %s", exc)
                self.dropped_bytes += len(view)
                if self._tcp:
                    self._hang_up()
                return False
            view = view[written:]
        return True

    # -- ports -------------------------------------------------------------------------------

    def _plug(self) -> None:
        if self._plugged:
            return
        self._generation += 1
        self._parser = Parser()
        self._host_said_hello.clear()
        if self._tcp:
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                listener.bind((self._host, self._port))
                listener.listen(1)
            except OSError:
                listener.close()
                raise
            self._port = listener.getsockname()[1]
            self._listener = listener
        else:
            assert self._link is not None
            master, slave = os.openpty()
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._channel, self._slave = master, slave
            temporary = self._link.with_name(self._link.name + ".new")
            temporary.unlink(missing_ok=True)
            temporary.symlink_to(os.ttyname(slave))
            os.replace(temporary, self._link)
        self._plugged = True

    def _unplug(self) -> None:
        if not self._plugged:
            return
        self._generation += 1
        self._plugged = False
        self._host_said_hello.clear()
        if self._link is not None:
            self._link.unlink(missing_ok=True)
        self._hang_up()
        for fd in (self._channel, self._slave):
            if fd is not None:
                os.close(fd)
        self._channel = self._slave = None
        if self._listener is not None:
            self._listener.close()
            self._listener = None

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            connection, _ = self._listener.accept()
        except OSError:
            return
        self._hang_up()  # one host at a time, as on a serial line: the newest wins
        connection.setblocking(False)
        self._generation += 1
        self._connection = connection
        self._channel = connection.fileno()
        self._parser = Parser()

    def _hang_up(self) -> None:
        """Drop the TCP host, if any (a pty has no such thing)."""
        if self._connection is not None:
            self._generation += 1
            self._connection.close()
            self._connection = None
            self._channel = None

    def _cleanup(self) -> None:
        try:
            self._unplug()
        finally:
            with self._lock:
                for fd in (self._wake_r, self._wake_w):
                    if fd >= 0:
                        os.close(fd)
                self._wake_r = self._wake_w = -1
            if self._tempdir is not None:
                shutil.rmtree(self._tempdir, ignore_errors=True)
                self._tempdir = None
