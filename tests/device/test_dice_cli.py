"""``nardy dice``: listen, emulate and ports, run as a user would."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from nardy.cli import main
from nardy.device.dicelog import load_dice_log
from nardy.device.emulator import HubConfig, HubEmulator
from nardy.device.events import Connected, Disconnected, Roll
from nardy.device.hub_script import ScriptError, parse_command, parse_script
from nardy.device.protocol import Message
from nardy.device.serial_reader import SerialDiceReader

from .conftest import FAST, WAIT, EventLog


def json_lines(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_listen_prints_json_events_from_a_hub(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "session.jsonl"
    with HubEmulator(HubConfig(device_id="tower-1", heartbeat_interval=0.05), seed=5) as hub:

        def throw_when_heard() -> None:
            if hub.wait_for_host(WAIT):
                hub.roll((3, 5))
                hub.roll((6, 6))

        thrower = threading.Thread(target=throw_when_heard)
        thrower.start()
        try:
            code = main(["dice", "listen", "--port", hub.path, "--json", "--rolls", "2", "--log", str(log)])
        finally:
            thrower.join()
    assert code == 0
    out, err = capsys.readouterr()
    lines = json_lines(out)
    assert lines[0]["type"] == "connected" and lines[0]["device"] == "tower-1" and lines[0]["proto"] == 1
    rolls = [line for line in lines if line["type"] == "roll"]
    assert [(roll["dice"], roll["seq"], roll["device"]) for roll in rolls] == [
        ([3, 5], 1, "tower-1"),
        ([6, 6], 2, "tower-1"),
    ]
    assert {"type": "rolling", "device": "tower-1"} in lines
    assert lines[-1] == {"type": "disconnected", "device": "tower-1", "reason": "stopped"}
    assert "tower-1: " in err and "messages" in err
    entries = load_dice_log(log)
    assert [entry.event.to_json() for entry in entries] == lines
    assert all(entry.t >= 0 for entry in entries)


def test_listen_without_json_prints_lines_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    with HubEmulator(HubConfig(device_id="tower-1", heartbeat_interval=0.05)) as hub:
        thrower = threading.Thread(target=lambda: hub.wait_for_host(WAIT) and hub.roll((2, 4)))
        thrower.start()
        try:
            assert main(["dice", "listen", "--port", hub.path, "--rolls", "1"]) == 0
        finally:
            thrower.join()
    out = capsys.readouterr().out
    assert "connected tower-1" in out and "roll 2-4 (seq 1, e-dice)" in out


def test_listen_replays_a_log(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "game.jsonl"
    log.write_text(
        '{"t": 0, "type": "connected", "device": "tower-1", "proto": 1}\n'
        '{"t": 3.5, "type": "roll", "dice": [3, 5], "seq": 1, "device": "replay"}\n'
        '{"t": 9, "type": "tilt"}\n'
    )
    assert main(["dice", "listen", "--replay", str(log), "--speed", "0", "--json"]) == 0
    lines = json_lines(capsys.readouterr().out)
    assert [line["type"] for line in lines] == ["connected", "roll", "tilt"]
    assert lines[1]["dice"] == [3, 5] and lines[1]["source"] == "replay"


def test_listen_refuses_a_bad_log_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"t": 0, "type": "roll", "dice": [3, 8], "seq": 1}\n')
    assert main(["dice", "listen", "--replay", str(log)]) == 1
    assert "bad.jsonl:1" in capsys.readouterr().err
    assert main(["dice", "listen", "--replay", str(tmp_path / "missing.jsonl")]) == 1


def test_listen_to_typed_throws(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("3 5\n7 1\n6-6\n"))
    assert main(["dice", "listen", "--manual", "--json"]) == 0
    lines = json_lines(capsys.readouterr().out)
    assert [(line["type"], line.get("dice")) for line in lines] == [
        ("roll", [3, 5]),
        ("error", None),
        ("roll", [6, 6]),
    ]
    assert lines[1]["message"] == "bad entry" and "'7 1'" in str(lines[1]["detail"])


def test_listen_to_a_missing_port_fails_unless_told_to_wait(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(tmp_path / "ttyUSB9")
    assert main(["dice", "listen", "--port", missing, "--json"]) == 1
    out, err = capsys.readouterr()
    assert json_lines(out)[0]["message"] == "cannot open port"
    assert "ttyUSB9" in err


def test_listen_needs_exactly_one_source(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["dice", "listen", "--json"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit):
        main(["dice", "listen", "--port", "loop://", "--manual"])
    assert main(["dice"]) == 2


def test_ports_lists_something_or_says_nothing_is_there(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dice", "ports", "--json"]) == 0
    out, err = capsys.readouterr()
    for line in json_lines(out):
        assert {"device", "description", "hwid"} <= set(line)
    assert out or "no serial ports" in err


def test_script_commands_parse_and_refuse_mistakes() -> None:
    steps = parse_script(
        ["# comment", "roll", "roll 3 5", "", "unplug 1.5", "wait host", "raw $X*0000 # kept"]
    )
    assert [step.command for step in steps] == ["roll", "roll", "unplug", "wait", "raw"]
    assert steps[1].dice == (3, 5) and steps[2].number == 1.5 and steps[4].text == "$X*0000 # kept"
    assert parse_command("", interactive=True) is not None and parse_command("") is None
    for bad, why in [
        ("roll 3 9", "1 to 6"),
        ("dance", "unknown command"),
        ("battery", "takes 1"),
        ("battery 120", "0..100"),
        ("wait soon", "seconds"),
        ("unplug -1", ">= 0"),
        ("error", "needs some text"),
    ]:
        with pytest.raises(ScriptError, match=why):
            parse_script(["roll", bad], name="s.txt")
    with pytest.raises(ScriptError, match="s.txt: line 2"):
        parse_script(["roll", "dance"], name="s.txt")


def test_emulate_refuses_a_bad_script_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "bad.txt"
    script.write_text("roll\nroll 0 0\n")
    assert main(["dice", "emulate", "--script", str(script)]) == 2
    assert "line 2" in capsys.readouterr().err


def test_emulate_runs_a_script_for_a_real_reader(tmp_path: Path, events: EventLog) -> None:
    script = tmp_path / "session.txt"
    script.write_text("roll 3 5\nwait ping\nunplug 0.2\nwait host\nroll 6 1\nreboot\nroll 2 2\n")
    link = tmp_path / "hub"
    command = [sys.executable, "-m", "nardy", "dice", "emulate", "--seed", "4", "--script", str(script),
               "--heartbeat", "0.05", "--settle", "0", "--id", "tower-5", "--link", str(link)]  # fmt: skip
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    failure: AssertionError | None = None
    try:
        assert process.stdout is not None
        path = process.stdout.readline().strip()
        assert path == str(link) and link.is_symlink()
        with SerialDiceReader(path, events.queue, config=FAST) as reader:
            first = events.next(Connected)
            assert first.device == "tower-5" and first.downtime is None
            assert events.next(Roll) == Roll((3, 5), 1, "tower-5")
            reader.send(Message("PING"))  # the script goes on: unplug for 0.2 s
            events.next(Disconnected)
            back = events.next(Connected)
            assert back.boot == first.boot and back.downtime is not None
            assert events.next(Roll) == Roll((6, 1), 2, "tower-5")
            rebooted = events.next(Connected)
            assert rebooted.boot != first.boot and rebooted.downtime is None
            assert events.next(Roll) == Roll((2, 2), 1, "tower-5")
    except AssertionError as exc:
        failure = exc
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=WAIT)
    if failure is not None:
        raise AssertionError(f"{failure}\nthe emulator said:\n{err}")
    assert process.returncode == 0, err
    assert "script done" in err
    assert not link.exists() and not os.path.lexists(link)
