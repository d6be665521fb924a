"""The little command language of ``nardy dice emulate``: typed at its prompt or read from a script.

One command per line; ``#`` starts a comment::

    roll            # random dice (at the prompt, an empty line does this too)
    roll 3 5        # fixed dice
    rolling         # only "dice in motion"
    tilt            # a cocked die
    battery 40      # report a battery level
    error jammed    # report a hub error
    garbage 200     # 200 random bytes of line noise
    raw $ROLL,seq=9,d=7-7*0000   # a line sent exactly as written
    unplug 2        # pull the cable for 2 s (without a time: until "plug")
    plug
    silence 6       # hang for 6 s: no heartbeats, no answers (without a time: until "resume")
    resume
    reboot          # new boot id, throws numbered from 1 again
    wait 1.5        # pause the script
    wait host       # until a host says HELLO? (again, after an unplug)
    wait ping       # until the host sends PING (a test host paces a script this way)
    quit
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from nardy.device.emulator import HubEmulator
from nardy.device.events import DiceValueError
from nardy.device.manual import parse_dice

__all__ = ["COMMANDS", "ScriptError", "ScriptRunner", "Step", "parse_command", "parse_script"]

COMMANDS = (
    "roll",
    "rolling",
    "tilt",
    "battery",
    "error",
    "garbage",
    "raw",
    "unplug",
    "plug",
    "silence",
    "resume",
    "reboot",
    "wait",
    "quit",
    "help",
)


class ScriptError(ValueError):
    """A command that cannot be run; the message says where and why."""


@dataclass(frozen=True, slots=True)
class Step:
    """One parsed command."""

    command: str
    dice: tuple[int, int] | None = None
    number: float | None = None
    text: str = ""
    line: int = 0


def _number(word: str, where: str, *, whole: bool = False) -> float:
    try:
        value = int(word) if whole else float(word)
    except ValueError:
        kind = "a whole number" if whole else "a number of seconds"
        raise ScriptError(f"{where}expected {kind}, got {word!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ScriptError(f"{where}expected a number >= 0, got {word!r}")
    return value


def parse_command(text: str, *, line: int = 0, interactive: bool = False) -> Step | None:
    """Parse one line; ``None`` for a blank line or a comment (at the prompt, blank means roll)."""
    where = f"line {line}: " if line else ""
    body = text if text.lstrip().startswith("raw ") else text.split("#", 1)[0]
    words = body.split()
    if not words:
        return Step("roll", line=line) if interactive and not text.strip() else None
    command, args = words[0].lower(), words[1:]
    if command not in COMMANDS:
        raise ScriptError(f"{where}unknown command {words[0]!r}; commands: {', '.join(COMMANDS)}")

    def arguments(low: int, high: int) -> None:
        if not low <= len(args) <= high:
            wanted = f"{low}" if low == high else f"{low} to {high}"
            raise ScriptError(f"{where}{command} takes {wanted} argument(s), got {len(args)}")

    if command == "roll":
        if not args:
            return Step("roll", line=line)
        try:
            return Step("roll", dice=parse_dice(" ".join(args)), line=line)
        except DiceValueError as exc:
            raise ScriptError(f"{where}{exc}") from None
    if command == "battery":
        arguments(1, 1)
        pct = _number(args[0], where, whole=True)
        if pct > 100:
            raise ScriptError(f"{where}battery is 0..100 percent, got {args[0]}")
        return Step("battery", number=pct, line=line)
    if command == "garbage":
        arguments(1, 1)
        return Step("garbage", number=_number(args[0], where, whole=True), line=line)
    if command in ("error", "raw"):
        rest = body.strip()[len(words[0]) :].strip()
        if not rest:
            raise ScriptError(f"{where}{command} needs some text")
        return Step(command, text=rest, line=line)
    if command in ("unplug", "silence"):
        arguments(0, 1)
        return Step(command, number=_number(args[0], where) if args else None, line=line)
    if command == "wait":
        arguments(1, 1)
        if args[0].lower() in ("host", "ping"):
            return Step("wait", text=args[0].lower(), line=line)
        return Step("wait", number=_number(args[0], where), line=line)
    arguments(0, 0)
    return Step(command, line=line)


def parse_script(lines: Iterable[str], *, name: str = "<script>") -> list[Step]:
    """Parse a whole script up front, so a mistake on line 40 is found before line 1 runs."""
    steps: list[Step] = []
    for number, text in enumerate(lines, start=1):
        try:
            step = parse_command(text, line=number)
        except ScriptError as exc:
            raise ScriptError(f"{name}: {exc}") from None
        if step is not None:
            steps.append(step)
    return steps


class ScriptRunner:
    """Runs steps on ``emulator``, one at a time, remembering what earlier steps waited for.

    ``wait(seconds)`` pauses and returns ``True`` if the session is being stopped meanwhile.
    ``say`` reports what happened, for the person at the prompt.
    """

    def __init__(
        self,
        emulator: HubEmulator,
        *,
        wait: Callable[[float], bool],
        say: Callable[[str], object] = print,
    ) -> None:
        self.emulator = emulator
        self.wait = wait
        self.say = say
        self.pings_awaited = 0
        """How many PINGs ``wait ping`` steps have consumed (each waits for one more)."""

    def run(self, step: Step) -> bool:
        """Do ``step``; return ``False`` when the session should end."""
        emulator, wait, say = self.emulator, self.wait, self.say
        command = step.command
        if command == "roll":
            dice = emulator.roll(step.dice)
            say(f"rolled {dice[0]}-{dice[1]} (seq {emulator.state.seq})")
        elif command == "rolling":
            emulator.rolling()
            say("rolling...")
        elif command == "tilt":
            emulator.tilt()
            say("tilt")
        elif command == "battery":
            assert step.number is not None
            emulator.battery(int(step.number))
            say(f"battery {int(step.number)}%")
        elif command == "error":
            emulator.error(step.text)
            say(f"error {step.text!r}")
        elif command == "garbage":
            assert step.number is not None
            emulator.garbage(int(step.number))
            say(f"sent {int(step.number)} bytes of noise")
        elif command == "raw":
            emulator.send_raw(step.text.encode("utf-8") + b"\n")
            say(f"sent {step.text!r}")
        elif command in ("unplug", "silence"):
            (emulator.unplug if command == "unplug" else emulator.silence)()
            if step.number is None:
                say("unplugged ('plug' ends it)" if command == "unplug" else "silent ('resume' ends it)")
                return True
            say(f"{'unplugged' if command == 'unplug' else 'silent'} for {step.number:g} s")
            stopped = wait(step.number)
            (emulator.plug if command == "unplug" else emulator.resume)()
            say("plugged in again" if command == "unplug" else "talking again")
            return not stopped
        elif command == "plug":
            emulator.plug()
            say("plugged in")
        elif command == "resume":
            emulator.resume()
            say("talking again")
        elif command == "reboot":
            emulator.reboot()
            say(f"rebooted (boot {emulator.state.boot})")
        elif command == "wait":
            if step.text == "host":
                say("waiting for a host to say HELLO?")
                while not emulator.wait_for_host(0.2):
                    if wait(0):
                        return False
                return True
            if step.text == "ping":
                say("waiting for the host to send PING")
                self.pings_awaited += 1
                while not emulator.wait_for("PING", 0.2, count=self.pings_awaited):
                    if wait(0):
                        return False
                return True
            assert step.number is not None
            return not wait(step.number)
        elif command == "help":
            say(__doc__ or "")
        elif command == "quit":
            return False
        return True
