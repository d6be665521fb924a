"""Property tests of the parser and decoder: nothing crashes them, and corruption never makes a roll.

The CRC-16 detects every error burst of up to 16 bits, so a line whose bytes were damaged within
two neighbouring bytes can never pass as a roll. Corruptions here are exactly those, applied
anywhere in a stream of valid lines (payload, checksum, ``$``, ``*`` or line ending).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.device.decoder import HubDecoder
from nardy.device.events import ProtocolError, Roll
from nardy.device.protocol import MAX_LINE, BadLine, Message, Parser

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

die = st.integers(min_value=1, max_value=6)
roll_messages = st.builds(
    lambda seq, a, b, replay: Message.make(
        "ROLL", seq=seq, d=f"{a}-{b}", **({"replay": 1} if replay else {})
    ),
    st.integers(min_value=0, max_value=10**9),
    die,
    die,
    st.booleans(),
)
text_value = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="$*,"), max_size=20
)
other_messages = st.one_of(
    st.just(Message("HB")),
    st.just(Message("ROLLING")),
    st.just(Message("TILT")),
    st.builds(lambda pct: Message.make("BAT", pct=pct), st.integers(0, 100)),
    st.builds(lambda text: Message.make("ERR", msg=text), text_value),
    st.builds(
        lambda boot: Message.make("HELLO", proto=1, id="tower-1", boot=boot),
        st.text("0123456789abcdef", min_size=1, max_size=8),
    ),
)
messages = st.lists(st.one_of(roll_messages, other_messages), min_size=1, max_size=12)
line_ending = st.sampled_from([b"\n", b"\r\n"])


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(cut % (len(data) + 1) for cut in cuts)})
    return [data[a:b] for a, b in zip(points, points[1:], strict=False)]


def parse(chunks: list[bytes], *, lenient: bool = False) -> list[Message | BadLine]:
    parser = Parser(lenient=lenient)
    items = [item for chunk in chunks for item in parser.feed(chunk)]
    return items + parser.finish()


@SETTINGS
@given(st.binary(max_size=600), st.lists(st.integers(min_value=0), max_size=8), st.booleans())
def test_any_bytes_in_any_chunks_never_crash_the_parser(data: bytes, cuts: list[int], lenient: bool) -> None:
    items = parse(split(data, cuts), lenient=lenient)
    for item in items:
        assert isinstance(item, (Message, BadLine))
        if isinstance(item, Message):
            assert len(item.line()) <= MAX_LINE
    hub = HubDecoder(fallback_device="fuzz")
    hub.connection_opened()
    for item in items:
        for event in hub.decode(item):
            if isinstance(event, Roll):
                assert all(1 <= value <= 6 for value in event.dice)


@SETTINGS
@given(
    st.lists(
        st.one_of(messages.map(lambda ms: b"".join(m.encode() for m in ms)), st.binary(max_size=40)),
        max_size=6,
    ),
    st.lists(st.integers(min_value=0), max_size=10),
)
def test_chunking_never_changes_the_result(parts: list[bytes], cuts: list[int]) -> None:
    data = b"".join(parts)
    assert parse(split(data, cuts)) == parse([data])
    assert parse([data[i : i + 1] for i in range(len(data))]) == parse([data])


@SETTINGS
@given(messages, line_ending, st.lists(st.integers(min_value=0), max_size=6))
def test_valid_lines_come_through_whatever_the_chunking(
    found: list[Message], ending: bytes, cuts: list[int]
) -> None:
    data = b"".join(message.line().encode() + ending for message in found)
    assert parse(split(data, cuts)) == found


@SETTINGS
@given(
    messages,
    st.integers(min_value=0),
    st.integers(min_value=1, max_value=0xFFFF),
    st.lists(st.integers(min_value=0), max_size=6),
)
def test_a_corrupted_line_never_becomes_a_roll(
    found: list[Message], where: int, burst: int, cuts: list[int]
) -> None:
    lines = [message.line().encode() + b"\n" for message in found]
    data = bytearray(b"".join(lines))
    position = where % (len(data) - 1)
    data[position] ^= burst >> 8
    data[position + 1] ^= burst & 0xFF  # a burst of up to 16 bits: CRC-16 always detects it
    changed = [p for p, mask in ((position, burst >> 8), (position + 1, burst & 0xFF)) if mask]
    damaged = {index for index in range(len(lines)) for p in changed if _contains(lines, index, p)}

    def rolls_from(items: list[Message | BadLine]) -> list[Roll]:
        hub = HubDecoder(fallback_device="fuzz")
        hub.connection_opened()
        return [event for item in items for event in hub.decode(item) if isinstance(event, Roll)]

    got = rolls_from(parse(split(bytes(data), cuts)))
    intact = rolls_from([message for index, message in enumerate(found) if index not in damaged])
    # the damaged line is lost (whatever it was), every intact line comes through
    assert got == intact


def _contains(lines: list[bytes], index: int, position: int) -> bool:
    start = sum(len(line) for line in lines[:index])
    return start <= position < start + len(lines[index])


@SETTINGS
@given(st.lists(st.one_of(roll_messages, other_messages), max_size=20))
def test_the_decoder_turns_any_valid_messages_into_valid_events(found: list[Message]) -> None:
    hub = HubDecoder(fallback_device="fuzz")
    hub.connection_opened()
    seen: set[tuple[str | None, int]] = set()
    for message in found:
        for event in hub.decode(message):
            if isinstance(event, Roll):
                key = (hub.boot, event.seq)
                assert key not in seen, "a roll is reported once"
                seen.add(key)
            assert not isinstance(event, ProtocolError) or message.type in ("ERR", "ROLL", "HELLO", "BAT")
