"""The wire format: checksums, messages, and the parser fed bytes in every shape."""

from __future__ import annotations

import binascii

import pytest

from nardy.device.protocol import MAX_LINE, BadLine, FrameError, Message, Parser, crc16

ROLL = b"$ROLL,seq=17,d=3-5*7155\n"


def framed(payload: bytes) -> bytes:
    """A line with a correct checksum around any payload, valid or not."""
    return b"$" + payload + b"*" + b"%04X" % crc16(payload) + b"\n"


def messages(items: list[Message | BadLine]) -> list[Message]:
    return [item for item in items if isinstance(item, Message)]


def errors(items: list[Message | BadLine]) -> list[str]:
    return [item.message for item in items if isinstance(item, BadLine)]


def test_crc_is_ccitt_false_with_its_check_value() -> None:
    assert crc16(b"123456789") == 0x29B1
    assert crc16(b"") == 0xFFFF
    assert crc16(b"ROLL,seq=17,d=3-5") == binascii.crc_hqx(b"ROLL,seq=17,d=3-5", 0xFFFF) == 0x7155


def test_message_round_trips_through_a_line() -> None:
    message = Message.make("ROLL", seq=17, d="3-5", replay=True)
    assert message.fields == (("seq", "17"), ("d", "3-5"), ("replay", "1"))
    assert message.payload() == "ROLL,seq=17,d=3-5,replay=1"
    assert message.line() == "$ROLL,seq=17,d=3-5,replay=1*CFF6"
    assert message.encode() == b"$ROLL,seq=17,d=3-5,replay=1*CFF6\n"
    assert Message.from_line(message.encode()) == message
    assert Message.from_line(message.line()) == message
    assert eval(repr(message)) == message
    assert message.get("d") == "3-5" and message.get("nope") is None and message.get("nope", "x") == "x"


def test_host_commands_have_question_marks_and_no_fields() -> None:
    assert Message("HELLO?").line() == "$HELLO?*C851"
    assert Message.from_line("$SYNC*FC1C\r\n") == Message("SYNC")


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda: Message("roll"), "bad message type"),
        (lambda: Message("RO LL"), "bad message type"),
        (lambda: Message("ROLL", (("Seq", "1"),)), "bad field name"),
        (lambda: Message("ROLL", (("seq", "1"), ("seq", "2"))), "appears twice"),
        (lambda: Message.make("ERR", msg="a,b"), "bad value"),
        (lambda: Message.make("ERR", msg="a*b"), "bad value"),
        (lambda: Message.make("ERR", msg="a$b"), "bad value"),
        (lambda: Message.make("ERR", msg="é"), "bad value"),
        (lambda: Message.make("ERR", msg="x" * 200), "would be"),
    ],
)
def test_invalid_messages_are_refused_with_the_reason(make: object, why: str) -> None:
    with pytest.raises(FrameError, match=why):
        make()  # type: ignore[operator]


def test_from_line_raises_for_anything_but_one_good_message() -> None:
    with pytest.raises(FrameError, match="bad checksum"):
        Message.from_line("$ROLL,seq=17,d=3-5*7156")
    with pytest.raises(FrameError, match="expected one message"):
        Message.from_line("$HB*F1EC\n$HB*F1EC\n")


@pytest.mark.parametrize(
    "message",
    [
        Message.make("HELLO", proto=1, id="tower-1", fw="1.0.2", boot="5e1f09a2"),
        Message("ROLLING"),
        Message.make("ROLL", seq=1, d="6-6"),
        Message.make("ROLL", seq=2, d="1-2", replay=1),
        Message("TILT"),
        Message.make("BAT", pct=80),
        Message("HB"),
        Message.make("ERR", msg="sensor timeout (code 3)"),
        Message("HELLO?"),
        Message("SYNC"),
        Message("PING"),
        Message.make("FUTURE_THING", x="1"),
    ],
)
def test_every_message_type_parses(message: Message) -> None:
    parser = Parser()
    assert parser.feed(message.encode()) == [message]
    assert parser.feed(message.line().encode() + b"\r\n") == [message]
    assert parser.messages == 2 and not parser.errors


def test_chunking_does_not_matter_byte_by_byte() -> None:
    stream = ROLL + b"$HB*F1EC\r\n" + b"junk\n" + ROLL.replace(b"7155", b"7156")
    whole = Parser().feed(stream)
    parser = Parser()
    pieces = [item for i in range(len(stream)) for item in parser.feed(stream[i : i + 1])]
    assert pieces == whole
    assert [type(item).__name__ for item in whole] == ["Message", "Message", "BadLine", "BadLine"]


def test_merged_lines_in_one_chunk() -> None:
    items = Parser().feed(ROLL * 3 + b"$HB*F1EC\n")
    assert [m.type for m in messages(items)] == ["ROLL", "ROLL", "ROLL", "HB"]


def test_a_lost_line_ending_costs_only_that_line() -> None:
    items = Parser().feed(b"$ROLL,seq=17,d=3-5*7155$HB*F1EC\n")
    assert errors(items) == ["incomplete line"]
    assert messages(items) == [Message("HB")]


def test_bad_checksum_is_dropped_and_counted() -> None:
    parser = Parser()
    items = parser.feed(b"$ROLL,seq=17,d=3-6*7155\n" + ROLL)
    assert errors(items) == ["bad checksum"]
    assert "computed" in items[0].detail  # type: ignore[union-attr]
    assert messages(items) == [Message.make("ROLL", seq=17, d="3-5")]
    assert parser.errors["bad checksum"] == 1


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"$ROLL,seq=17,d=3-5\n", "missing checksum"),
        (b"$ROLL,seq=17,d=3-5*7155x\n", "malformed checksum"),
        (b"$ROLL,seq=17,d=3-5*71\n", "malformed checksum"),
        (b"$HB*f1ec\n", "malformed checksum"),
        (framed(b"HB,x"), "malformed line"),
        (framed(b"roll"), "malformed line"),
        (framed(b"HB,a=\xff"), "malformed line"),
        (framed(b"HB,,a=1"), "malformed line"),
        (framed(b""), "malformed line"),
        (b"$\n", "missing checksum"),
        (b"$" + b"A" * MAX_LINE + b"\n", "line too long"),
        (b"garbage\n", "noise"),
    ],
)
def test_broken_lines_are_reported_by_name(line: bytes, message: str) -> None:
    parser = Parser()
    assert errors(parser.feed(line)) == [message]
    assert messages(parser.feed(ROLL)), "the parser recovers at once"


def test_the_longest_line_is_accepted_and_one_more_is_not() -> None:
    value = "x" * (MAX_LINE - len("$ERR,msg=*CCCC"))
    longest = Message.make("ERR", msg=value)
    assert len(longest.line()) == MAX_LINE
    assert Parser().feed(longest.line().encode() + b"\r\n") == [longest]
    assert errors(Parser().feed(framed(b"ERR,msg=" + value.encode() + b"y"))) == ["line too long"]


def test_an_endless_line_uses_bounded_memory_and_is_reported_once() -> None:
    parser = Parser()
    found: list[Message | BadLine] = []
    for _ in range(1000):
        found += parser.feed(b"$" + b"A" * 1000)
        found += parser.feed(b"B" * 1000)
    assert len(parser._frame) <= MAX_LINE + 1 and len(parser._noise) <= MAX_LINE + 2
    found += parser.feed(b"\n" + ROLL)
    assert errors(found).count("line too long") == 1000  # each "$" begins a new frame
    assert messages(found) == [Message.make("ROLL", seq=17, d="3-5")]


def test_noise_between_lines_is_reported_but_blank_bytes_are_not() -> None:
    parser = Parser()
    items = parser.feed(b"\x00\x00\r\n  \n" + b"ets Jul 29 2019 boot\r\n" + b"\xff\xfe$HB*F1EC\n")
    assert errors(items) == ["noise", "noise"]
    assert messages(items) == [Message("HB")]
    assert parser.noise_bytes == len(b"\x00\x00\r  ets Jul 29 2019 boot\r\xff\xfe")


def test_finish_reports_a_line_cut_off_by_the_end_of_the_stream() -> None:
    parser = Parser()
    assert parser.feed(b"$ROLL,seq=1") == []
    assert errors(parser.finish()) == ["incomplete line"]
    assert parser.feed(ROLL) == [Message.make("ROLL", seq=17, d="3-5")]


def test_strict_mode_refuses_typed_lines() -> None:
    assert errors(Parser().feed(b"$ROLL,seq=1,d=3-5\n")) == ["missing checksum"]
    assert errors(Parser().feed(b"roll,seq=1,d=3-5\n")) == ["noise"]


def test_lenient_mode_accepts_what_a_person_types() -> None:
    parser = Parser(lenient=True)
    expected = Message.make("ROLL", seq=1, d="3-5")
    assert parser.feed(b"$ROLL,seq=1,d=3-5\n") == [expected]
    assert parser.feed(b"roll, seq = 1, d = 3-5 \r\n") == [expected]
    assert parser.feed(b"$ROLL,seq=17,d=3-5*7155\n") == [Message.make("ROLL", seq=17, d="3-5")]
    assert parser.feed(b"$HB*f1ec\n") == [Message("HB")]
    # a checksum that is given must still be right
    assert errors(parser.feed(b"$ROLL,seq=17,d=3-6*7155\n")) == ["bad checksum"]
    assert parser.feed(b"\n   \n") == []
