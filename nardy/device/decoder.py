"""From a hub's messages to events: who it is, each throw once, and what changed.

:class:`HubDecoder` holds what one hub has said so far. It is pure (no port, no thread): the
serial reader feeds it what the :class:`~nardy.device.protocol.Parser` produced.
"""

from __future__ import annotations

import logging
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import ClassVar

from nardy.device.events import (
    Battery,
    Connected,
    DiceEvent,
    ProtocolError,
    Roll,
    Rolling,
    Tilt,
)
from nardy.device.protocol import PROTOCOL_VERSION, BadLine, Message

__all__ = ["HubDecoder"]

logger = logging.getLogger(__name__)

_NUMBER = re.compile(r"[0-9]{1,10}")
_DICE = re.compile(r"([1-6])-([1-6])")
_SEQ_HISTORY = 1024
"""How many roll numbers per boot are remembered to recognise duplicates."""
_BOOT_HISTORY = 8
"""How many boots of the hub are remembered."""


class _Invalid(ValueError):
    pass


def _number(message: Message, key: str) -> int:
    text = message.get(key)
    if text is None:
        raise _Invalid(f"{message.type} without {key}=")
    if not _NUMBER.fullmatch(text):
        raise _Invalid(f"{key}={text!r} is not a whole number")
    return int(text)


class HubDecoder:
    """Interpret the messages of one hub.

    - ``HELLO`` becomes :class:`Connected` (once per connection, again if the hub rebooted);
    - ``ROLLING`` becomes :class:`Rolling` when the dice start moving (repeats are dropped);
    - ``ROLL`` becomes :class:`Roll` unless its ``(boot, seq)`` was seen already (a duplicate,
      dropped and counted in :attr:`duplicates`), with ``missed`` set when ``seq`` skipped some;
    - ``TILT``, ``BAT`` (when the level changes) and ``ERR`` become their events;
    - ``HB``, host commands and unknown types are ignored; a known message with bad fields, and
      every :class:`BadLine`, becomes a :class:`ProtocolError`. Dice outside 1..6 never make a
      :class:`Roll`.
    """

    def __init__(self, *, fallback_device: str, port: str = "", clock: Callable[[], float] = time.monotonic):
        self.fallback_device = fallback_device
        """The name events carry until the hub says its id."""
        self.port = port
        self.clock = clock
        self.device_id: str | None = None
        """The id the hub gave in its last HELLO."""
        self.boot: str | None = None
        """The boot id the hub gave in its last HELLO."""
        self.duplicates = 0
        """How many resent rolls were dropped because they had been seen."""
        self.ignored = 0
        """How many valid messages were ignored (heartbeats, unknown types, host commands)."""
        self._hello_seen = False
        self._downtime: float | None = None
        self._rolling = False
        self._battery: int | None = None
        # boot id (None until the first HELLO) -> roll numbers seen, oldest first
        self._seen: OrderedDict[str | None, tuple[set[int], deque[int]]] = OrderedDict()
        self._last_seq: dict[str | None, int] = {}

    @property
    def device(self) -> str:
        """The hub's id, or the fallback name before it said HELLO."""
        return self.device_id if self.device_id is not None else self.fallback_device

    @property
    def hello_seen(self) -> bool:
        """Whether the hub said HELLO since :meth:`connection_opened`."""
        return self._hello_seen

    def connection_opened(self, downtime: float | None = None) -> None:
        """A new connection to the hub: expect a HELLO; ``downtime`` is how long it was lost."""
        self._hello_seen = False
        self._downtime = downtime
        self._rolling = False
        self._battery = None

    def decode(self, item: Message | BadLine) -> list[DiceEvent]:
        """The events that ``item`` means (often none)."""
        now = self.clock()
        if isinstance(item, BadLine):
            return [ProtocolError(item.message, item.detail, self.device, timestamp=now)]
        handler = self._handlers.get(item.type)
        if handler is None:
            self.ignored += 1
            return []
        try:
            return handler(self, item, now)
        except _Invalid as exc:
            message = "bad roll" if item.type == "ROLL" else "bad message"
            return [ProtocolError(message, f"{exc}: {item.line()}", self.device, timestamp=now)]

    def _hello(self, message: Message, now: float) -> list[DiceEvent]:
        proto = _number(message, "proto")
        device_id = message.get("id")
        if not device_id:
            raise _Invalid("HELLO without id=")
        boot = message.get("boot", "") or ""
        fw = message.get("fw", "") or ""
        if proto > PROTOCOL_VERSION:
            logger.warning(
                "hub %s speaks protocol %d; this reader knows %d", device_id, proto, PROTOCOL_VERSION
            )
        changed = not self._hello_seen or boot != self.boot or device_id != self.device_id
        if self.boot is None and None in self._seen:
            # Rolls that arrived before the first HELLO came from this boot.
            self._seen[boot] = self._seen.pop(None)
            last = self._last_seq.pop(None, None)
            if last is not None:
                self._last_seq[boot] = last
        if self._hello_seen and boot != self.boot:
            self._rolling = False
        last_seq = message.get("seq")
        if last_seq is not None and boot not in self._last_seq:
            # The hub's throw count when we first meet this boot: later gaps are throws we missed.
            self._last_seq[boot] = _number(message, "seq")
            self._seen_for(boot)
        downtime = None if self._hello_seen else self._downtime
        self._hello_seen = True
        self.device_id, self.boot = device_id, boot
        if not changed:
            return []
        return [Connected(device_id, proto, fw, boot, self.port, downtime, timestamp=now)]

    def _rolling_message(self, message: Message, now: float) -> list[DiceEvent]:
        if self._rolling:
            return []
        self._rolling = True
        return [Rolling(self.device, timestamp=now)]

    def _roll(self, message: Message, now: float) -> list[DiceEvent]:
        seq = _number(message, "seq")
        dice_text = message.get("d")
        if dice_text is None:
            raise _Invalid("ROLL without d=")
        match = _DICE.fullmatch(dice_text)
        if match is None:
            raise _Invalid(f"d={dice_text!r} is not two dice 1 to 6 like d=3-5")
        replay_text = message.get("replay", "0")
        if replay_text not in ("0", "1"):
            raise _Invalid(f"replay={replay_text!r} is neither 0 nor 1")
        self._rolling = False
        seen, order = self._seen_for(self.boot)
        if seq in seen:
            self.duplicates += 1
            logger.debug("dropped duplicate roll %s seq %d of %s", dice_text, seq, self.device)
            return []
        seen.add(seq)
        order.append(seq)
        if len(order) > _SEQ_HISTORY:
            seen.discard(order.popleft())
        last = self._last_seq.get(self.boot)
        missed = seq - last - 1 if last is not None and seq > last + 1 else 0
        if last is None or seq > last:
            self._last_seq[self.boot] = seq
        dice = (int(match.group(1)), int(match.group(2)))
        return [Roll(dice, seq, self.device, replay_text == "1", "e-dice", missed, timestamp=now)]

    def _seen_for(self, boot: str | None) -> tuple[set[int], deque[int]]:
        entry = self._seen.get(boot)
        if entry is None:
            entry = self._seen[boot] = (set(), deque())
            while len(self._seen) > _BOOT_HISTORY:
                old, _ = self._seen.popitem(last=False)
                self._last_seq.pop(old, None)
        else:
            self._seen.move_to_end(boot)
        return entry

    def _tilt(self, message: Message, now: float) -> list[DiceEvent]:
        self._rolling = False
        return [Tilt(self.device, timestamp=now)]

    def _battery_message(self, message: Message, now: float) -> list[DiceEvent]:
        pct = _number(message, "pct")
        if pct > 100:
            raise _Invalid(f"pct={pct} is more than 100")
        if pct == self._battery:
            return []
        self._battery = pct
        return [Battery(pct, self.device, timestamp=now)]

    def _error(self, message: Message, now: float) -> list[DiceEvent]:
        text = message.get("msg", "") or "(no message)"
        return [ProtocolError("device error", text, self.device, timestamp=now)]

    def _heartbeat(self, message: Message, now: float) -> list[DiceEvent]:
        self.ignored += 1
        return []

    _handlers: ClassVar[dict[str, Callable[[HubDecoder, Message, float], list[DiceEvent]]]] = {
        "HELLO": _hello,
        "ROLLING": _rolling_message,
        "ROLL": _roll,
        "TILT": _tilt,
        "BAT": _battery_message,
        "ERR": _error,
        "HB": _heartbeat,
    }
