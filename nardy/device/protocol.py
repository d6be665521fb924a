"""The dice-hub wire protocol: framing, checksums and messages (docs/dice-protocol.md).

A line on the wire is ``$TYPE,key=value,...*CCCC`` followed by ``\\n`` (or ``\\r\\n``), at most
:data:`MAX_LINE` characters from ``$`` to the last checksum digit. ``CCCC`` is the CRC-16/CCITT-FALSE
of the bytes between ``$`` and ``*`` as four upper-case hex digits.

This module is pure: :class:`Message` encodes and decodes single lines, and :class:`Parser` turns
arbitrary chunks of bytes (as a serial port or a socket delivers them) into messages and
:class:`BadLine` records. It knows nothing about ports, threads or what the messages mean.
"""

from __future__ import annotations

import binascii
import re
from collections import Counter
from dataclasses import dataclass

__all__ = [
    "DEFAULT_BAUDRATE",
    "MAX_LINE",
    "PROTOCOL_VERSION",
    "BadLine",
    "FrameError",
    "Message",
    "Parser",
    "crc16",
]

PROTOCOL_VERSION = 1
"""The protocol version this package speaks (the ``proto`` field of ``HELLO``)."""

DEFAULT_BAUDRATE = 115200
"""Hubs talk 115200 baud, 8 data bits, no parity, 1 stop bit unless configured otherwise."""

MAX_LINE = 128
"""The longest line allowed, counted from ``$`` to the last checksum digit (line ending excluded)."""

_TYPE = re.compile(r"[A-Z][A-Z0-9_]*\??")
_KEY = re.compile(r"[a-z][a-z0-9_]*")
_VALUE = re.compile(r"[\x20-\x7e]*")
_HEX4 = re.compile(rb"[0-9A-F]{4}")
_HEX4_ANY_CASE = re.compile(rb"[0-9A-Fa-f]{4}")
_DELIMITER = re.compile(rb"[\n$]")
_FORBIDDEN_IN_VALUE = frozenset("$*,")
_BLANK = frozenset(b" \t\r\n\x00")
_SAMPLE = 48


def crc16(data: bytes) -> int:
    """CRC-16/CCITT-FALSE of ``data``: polynomial 0x1021, initial value 0xFFFF, no reflection.

    >>> f"{crc16(b'123456789'):04X}"
    '29B1'
    """
    return binascii.crc_hqx(data, 0xFFFF)


class FrameError(ValueError):
    """A line or a message that does not follow the protocol.

    ``message`` is a short stable description (``"bad checksum"``, ``"malformed line"``, ...);
    ``detail`` says what exactly was wrong.
    """

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(f"{message}: {detail}" if detail else message)
        self.message = message
        self.detail = detail


def _sample(raw: bytes | bytearray) -> str:
    """A short printable excerpt of ``raw`` for error messages (other bytes as ``\\xNN``)."""
    text = "".join(
        chr(byte) if 0x20 <= byte < 0x7F and byte != 0x5C else f"\\x{byte:02x}" for byte in raw[:_SAMPLE]
    )
    return text + ("..." if len(raw) > _SAMPLE else "")


@dataclass(frozen=True, slots=True)
class Message:
    """One protocol message, such as ``$ROLL,seq=17,d=3-5``.

    ``Message("ROLL", (("seq", "17"), ("d", "3-5")))`` round-trips through :meth:`encode` and
    :meth:`from_line`; :meth:`make` builds one from keyword arguments.
    """

    type: str
    """The message type: upper-case letters, digits and ``_``, optionally ending in ``?``."""
    fields: tuple[tuple[str, str], ...] = ()
    """The ``key=value`` fields in wire order. Keys are lower-case; values are printable ASCII
    without ``$``, ``*`` or ``,``."""

    def __post_init__(self) -> None:
        if not _TYPE.fullmatch(self.type):
            raise FrameError("malformed line", f"bad message type {self.type!r}")
        seen: set[str] = set()
        for key, value in self.fields:
            if not _KEY.fullmatch(key):
                raise FrameError("malformed line", f"bad field name {key!r} in {self.type}")
            if key in seen:
                raise FrameError("malformed line", f"field {key!r} appears twice in {self.type}")
            seen.add(key)
            if not _VALUE.fullmatch(value) or not _FORBIDDEN_IN_VALUE.isdisjoint(value):
                raise FrameError("malformed line", f"bad value {value!r} for {key!r} in {self.type}")
        length = len(self.payload()) + len("$*CCCC")
        if length > MAX_LINE:
            raise FrameError("line too long", f"{self.type} would be {length} characters")

    @classmethod
    def make(cls, type: str, **fields: object) -> Message:
        """``Message.make("ROLL", seq=17, d="3-5")``; booleans become ``1``/``0``."""
        items = tuple((key, _text(value)) for key, value in fields.items())
        return cls(type, items)

    def get(self, key: str, default: str | None = None) -> str | None:
        """The value of field ``key``, or ``default`` when the message has none."""
        for name, value in self.fields:
            if name == key:
                return value
        return default

    def payload(self) -> str:
        """The checksummed part: ``ROLL,seq=17,d=3-5``."""
        return ",".join([self.type, *(f"{key}={value}" for key, value in self.fields)])

    def line(self) -> str:
        """The line without its ending: ``$ROLL,seq=17,d=3-5*7155``."""
        payload = self.payload()
        return f"${payload}*{crc16(payload.encode('ascii')):04X}"

    def encode(self) -> bytes:
        """The bytes to send, ending in ``\\n``."""
        return (self.line() + "\n").encode("ascii")

    @classmethod
    def from_payload(cls, text: str, *, lenient: bool = False) -> Message:
        """Parse the part between ``$`` and ``*``. ``lenient`` forgives case and spaces.

        Raises :class:`FrameError` (``"malformed line"``) when it is not ``TYPE,key=value,...``.
        """
        type_text, *parts = text.split(",")
        if lenient:
            type_text = type_text.strip().upper()
        fields: list[tuple[str, str]] = []
        for part in parts:
            key, sep, value = part.partition("=")
            if not sep:
                raise FrameError("malformed line", f"field {part!r} has no '=' in {_sample(text.encode())}")
            if lenient:
                key, value = key.strip().lower(), value.strip()
            fields.append((key, value))
        return cls(type_text, tuple(fields))

    @classmethod
    def from_line(cls, line: str | bytes, *, lenient: bool = False) -> Message:
        """Parse one complete line (with or without its line ending).

        Raises :class:`FrameError` for anything but exactly one valid message.
        """
        raw = line.encode("latin-1") if isinstance(line, str) else bytes(line)
        parser = Parser(lenient=lenient)
        items = parser.feed(raw if raw.endswith(b"\n") else raw + b"\n")
        if len(items) != 1:
            raise FrameError("malformed line", f"expected one message in {_sample(raw)}")
        item = items[0]
        if isinstance(item, BadLine):
            raise FrameError(item.message, item.detail)
        return item


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line the parser dropped, and why. It is data for the owner, not an exception."""

    message: str
    """Short and stable: ``bad checksum``, ``missing checksum``, ``malformed checksum``,
    ``malformed line``, ``line too long``, ``incomplete line`` or ``noise``."""
    detail: str
    """What exactly was wrong, quoting the line."""
    raw: bytes = b""
    """The start of the offending bytes (at most a line's worth)."""


_OUT, _FRAME, _SKIP = range(3)


class Parser:
    """Turn byte chunks into :class:`Message` and :class:`BadLine` items.

    Feed it whatever the transport delivers, split anywhere: the result does not depend on
    how the stream was chunked. ``$`` always starts a new frame, so a frame cut short by a lost
    line ending costs that frame only. Memory is bounded by :data:`MAX_LINE` whatever arrives.

    With ``lenient=True`` (for people typing into a terminal) a line without a checksum, or
    without the leading ``$``, is accepted; case and spaces are forgiven. A checksum that is
    present must still be right.
    """

    def __init__(self, *, lenient: bool = False) -> None:
        self.lenient = lenient
        self.messages = 0
        """How many valid messages were parsed."""
        self.errors: Counter[str] = Counter()
        """How many lines were dropped, by :attr:`BadLine.message`."""
        self.noise_bytes = 0
        """How many bytes outside any frame were skipped (including blank ones)."""
        self._state = _OUT
        self._frame = bytearray()
        self._noise = bytearray()
        self._noise_text = False

    def feed(self, data: bytes | bytearray | memoryview) -> list[Message | BadLine]:
        """Parse another chunk; return the items completed by it, in order."""
        data = bytes(data)
        out: list[Message | BadLine] = []
        pos, end = 0, len(data)
        search = _DELIMITER.search
        while pos < end:
            match = search(data, pos)
            stop = match.start() if match is not None else end
            if stop > pos:
                self._take(data[pos:stop], out)
            if match is None:
                break
            pos = stop + 1
            if data[stop] == 0x0A:
                self._end_of_line(out)
            else:
                self._dollar(out)
        return out

    def finish(self) -> list[Message | BadLine]:
        """The stream ended (port closed): report a frame left without its line ending."""
        out: list[Message | BadLine] = []
        if self._state == _FRAME and self._frame:
            self._bad(out, "incomplete line", f"stream ended inside {_sample(self._frame)}", self._frame)
        elif self._state == _OUT:
            self._end_noise(out, at_line_end=False)
        self._reset()
        return out

    def _reset(self) -> None:
        self._state = _OUT
        self._frame.clear()
        self._noise.clear()
        self._noise_text = False

    def _bad(self, out: list[Message | BadLine], message: str, detail: str, raw: bytes | bytearray) -> None:
        self.errors[message] += 1
        out.append(BadLine(message, detail, bytes(raw[: MAX_LINE + 1])))

    def _take(self, chunk: bytes, out: list[Message | BadLine]) -> None:
        """Bytes that are neither ``\\n`` nor ``$``."""
        if self._state == _FRAME:
            if len(self._frame) + len(chunk) > MAX_LINE + 1:  # + 1 for a "\r" before the "\n"
                sample = self._frame + chunk
                self._bad(out, "line too long", f"more than {MAX_LINE} characters: {_sample(sample)}", sample)
                self._frame.clear()
                self._state = _SKIP
            else:
                self._frame += chunk
        elif self._state == _OUT:
            self.noise_bytes += len(chunk)
            room = MAX_LINE + 2 - len(self._noise)
            if room > 0:
                self._noise += chunk[:room]
            if not self._noise_text and chunk.translate(None, bytes(_BLANK)):
                self._noise_text = True

    def _dollar(self, out: list[Message | BadLine]) -> None:
        if self._state == _FRAME:
            self._bad(out, "incomplete line", f"a new frame began inside {_sample(self._frame)}", self._frame)
        elif self._state == _OUT:
            self._end_noise(out, at_line_end=False)
        self._state = _FRAME
        self._frame.clear()
        self._frame += b"$"

    def _end_of_line(self, out: list[Message | BadLine]) -> None:
        if self._state == _FRAME:
            frame = bytes(self._frame)
            self._frame.clear()
            out.append(self._parse_frame(frame))
        elif self._state == _OUT:
            self._end_noise(out, at_line_end=True)
        self._state = _OUT

    def _end_noise(self, out: list[Message | BadLine], *, at_line_end: bool) -> None:
        noise, has_text = bytes(self._noise), self._noise_text
        self._noise.clear()
        self._noise_text = False
        if not has_text:
            return
        if self.lenient and at_line_end:
            # A person typed a message without the "$": parse the line as a frame.
            self.noise_bytes -= len(noise)
            if len(noise) > MAX_LINE + 1:
                self._bad(out, "line too long", f"more than {MAX_LINE} characters: {_sample(noise)}", noise)
                return
            out.append(self._parse_frame(b"$" + noise.strip()))
            return
        self._bad(out, "noise", f"ignored bytes outside a frame: {_sample(noise)}", noise)

    def _parse_frame(self, frame: bytes) -> Message | BadLine:
        """``frame`` starts with ``$`` and has no line ending but perhaps a ``\\r``."""
        if frame.endswith(b"\r"):
            frame = frame[:-1]
        if self.lenient:
            frame = frame.rstrip()
        out: list[Message | BadLine] = []
        if len(frame) > MAX_LINE:
            self._bad(out, "line too long", f"{len(frame)} characters: {_sample(frame)}", frame)
            return out[0]
        body = frame[1:]
        star = body.rfind(b"*")
        if star < 0:
            if not self.lenient:
                self._bad(out, "missing checksum", f"no '*CCCC' in {_sample(frame)}", frame)
                return out[0]
            payload = body.strip()
        else:
            payload, check = body[:star], body[star + 1 :]
            if self.lenient:
                payload, check = payload.strip(), check.strip()
            pattern = _HEX4_ANY_CASE if self.lenient else _HEX4
            if not pattern.fullmatch(check):
                detail = f"expected four upper-case hex digits in {_sample(frame)}"
                self._bad(out, "malformed checksum", detail, frame)
                return out[0]
            computed = crc16(payload)
            if int(check, 16) != computed:
                detail = f"{_sample(frame)} says {check.decode()}, computed {computed:04X}"
                self._bad(out, "bad checksum", detail, frame)
                return out[0]
        try:
            message = Message.from_payload(payload.decode("ascii"), lenient=self.lenient)
        except UnicodeDecodeError:
            self._bad(out, "malformed line", f"non-ASCII bytes in {_sample(frame)}", frame)
            return out[0]
        except FrameError as exc:
            self._bad(out, exc.message, exc.detail, frame)
            return out[0]
        self.messages += 1
        return message
