"""GNU Backgammon as the hint engine for short nardy.

Two ways to reach it, tried in this order:

- ``module``: the PyPI ``gnubg`` bindings, run in a worker process
  (:mod:`nardy.hints.gnubg_worker`) so that a crash in gnubg's C code ends the worker, not us;
- ``cli``: Debian's ``gnubg`` program, driven through its text interface with a timeout.

Every position is checked first (:func:`check_position`): gnubg knows standard backgammon only,
with exactly 15 checkers a side, and misbehaves on anything else. gnubg ranks its own list of
plays; each of ours is matched to one of them by the board it leads to, and any of ours gnubg
did not list (possible only under a folk rule it does not know) is evaluated directly.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from nardy.hints.engine import Chances, Hint, rank
from nardy.hints.features import flip
from nardy.rules import Play, Position, Roll, RulesError, Step, Variant, find_variant, notation
from nardy.rules.board import from_mover, to_mover
from nardy.rules.movegen import Board
from nardy.rules.position import CHECKERS
from nardy.rules.variants import ShortOptions

GnubgBoard = list[list[int]]

DEBIAN_PROGRAM = "/usr/games/gnubg"
WORKER_COMMAND = (sys.executable, "-m", "nardy.hints.gnubg_worker")


class GnubgError(RuntimeError):
    """gnubg failed to answer: it crashed, hung, or said something we cannot read."""


class GnubgUnavailable(GnubgError):
    """Neither the ``gnubg`` Python bindings nor the ``gnubg`` program is installed."""


class GnubgInputError(ValueError):
    """A position gnubg cannot take (not standard backgammon)."""


def check_position(variant: Variant, position: Position, roll: Roll) -> None:
    """Raise :class:`GnubgInputError` unless gnubg can safely evaluate ``position``."""
    if variant.name != "short" or position.variant != "short":
        raise GnubgInputError("GNU Backgammon plays short nardy (backgammon) only")
    if isinstance(variant.options, ShortOptions) and variant.options.max_per_point is not None:
        raise GnubgInputError("GNU Backgammon does not know the max_per_point folk rule")
    for color in (position.turn, position.turn.other):
        total = position.total(color)
        if total != CHECKERS:
            raise GnubgInputError(f"{color} has {total} checkers; GNU Backgammon needs {CHECKERS} a side")
        if position.off(color) == CHECKERS:
            raise GnubgInputError(f"the game is over: {color} has borne off all {CHECKERS}")
    if not (1 <= roll.low <= roll.high <= 6):
        raise GnubgInputError(f"not a roll: {roll!r}")


def gnubg_board(board: Board) -> GnubgBoard:
    """A mover board as gnubg's ``[player not on roll, player on roll]``."""
    opp, mover = notation.gnubg_board(board)
    return [opp, mover]


def apply_gnubg_move(board: Board, move: Sequence[int]) -> Board:
    """The mover board after gnubg's move tuple ``(from, to, from, to, ...)`` (25 bar, 0 or -1 off)."""
    b = list(board)
    for i in range(0, len(move) - 1, 2):
        src, dst = move[i], move[i + 1]
        if src < 0:
            break  # gnubg pads unused steps with -1
        if not 1 <= src <= 25 or b[src] <= 0:
            raise GnubgError(f"gnubg's move {tuple(move)} moves a checker from an empty point {src}")
        b[src] -= 1
        if dst <= 0:
            b[0] += 1
        elif b[dst] == -1:
            b[dst] = 1
            b[26] += 1
        elif b[dst] < -1:
            raise GnubgError(f"gnubg's move {tuple(move)} lands on a closed point {dst}")
        else:
            b[dst] += 1
    return tuple(b)


# ----------------------------------------------------------------------------- the worker
class _Worker:
    """A running :mod:`nardy.hints.gnubg_worker`, restarted once if it dies."""

    def __init__(self, command: Sequence[str], timeout: float, start_timeout: float) -> None:
        self.command = list(command)
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self._buffer = b""

    def _start(self) -> None:
        self.proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"},
        )
        self._buffer = b""
        answer = self._exchange({"op": "ping"}, timeout=self.start_timeout)
        if not answer.get("ok"):
            raise GnubgError(f"the gnubg worker did not start: {answer.get('error', answer)}")

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    stream.close()
            self.proc = None

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        for attempt in (1, 2):
            if self.proc is None or self.proc.poll() is not None:
                self.close()
                self._start()
            try:
                return self._exchange(request, self.timeout)
            except GnubgError:
                self.close()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    def _exchange(self, request: dict[str, Any], timeout: float) -> dict[str, Any]:
        proc = self.proc
        assert proc is not None and proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write((json.dumps(request) + "\n").encode())
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise GnubgError(f"the gnubg worker died (exit {proc.poll()})") from exc
        deadline = time.monotonic() + timeout
        fd = proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise GnubgError(f"the gnubg worker gave no answer in {timeout:g} s")
                chunk = os.read(fd, 65536)
                if not chunk:
                    raise GnubgError(f"the gnubg worker died (exit {proc.wait()})")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        try:
            answer: dict[str, Any] = json.loads(line)
        except json.JSONDecodeError as exc:
            raise GnubgError(f"the gnubg worker said something unreadable: {line[:80]!r}") from exc
        if "error" in answer:
            raise GnubgError(f"gnubg: {answer['error']}")
        return answer


# ----------------------------------------------------------------------------- the engine
class GnubgEngine:
    """GNU Backgammon ranking the legal plays of short nardy positions.

    ``backend``: ``"auto"`` (the bindings if importable, else the program), ``"module"`` or
    ``"cli"``. ``plies`` is gnubg's own count (0 = the resulting positions as they stand).
    ``timeout`` bounds each answer, ``start_timeout`` the worker's start (importing gnubg).

    Equities are gnubg's ranking scores at ``plies`` (with its own move filters, as in its
    ``hint``); the chances shown with each play are its 0-ply evaluation of the resulting
    position (a deeper one for every play would take a second or more), and the program
    backend shows the chances it prints.
    """

    def __init__(
        self,
        variant: Variant | str = "short",
        plies: int = 2,
        backend: str = "auto",
        timeout: float = 10.0,
        start_timeout: float = 30.0,
        worker_command: Sequence[str] = WORKER_COMMAND,
        program: str | None = None,
    ) -> None:
        self.variant = find_variant(variant)
        if self.variant.name != "short":
            raise GnubgInputError("GNU Backgammon plays short nardy (backgammon) only")
        if not 0 <= plies <= 3:
            raise ValueError(f"gnubg plies must be 0 to 3, not {plies}")
        self.plies = plies
        self.timeout = timeout
        self.program = (
            program or shutil.which("gnubg") or (DEBIAN_PROGRAM if os.path.exists(DEBIAN_PROGRAM) else None)
        )
        has_module = worker_command != WORKER_COMMAND or importlib.util.find_spec("gnubg") is not None
        if backend == "auto":
            backend = "module" if has_module else "cli"
        if backend == "module" and not has_module:
            raise GnubgUnavailable("the gnubg Python bindings are not installed")
        if backend == "cli" and self.program is None:
            raise GnubgUnavailable("neither the gnubg Python bindings nor the gnubg program is installed")
        if backend not in ("module", "cli"):
            raise ValueError(f"backend must be auto, module or cli, not {backend!r}")
        self.backend = backend
        self._worker = _Worker(worker_command, timeout, start_timeout) if backend == "module" else None

    @property
    def name(self) -> str:
        return f"gnubg {self.plies}-ply" if self.backend == "module" else f"gnubg program {self.plies}-ply"

    def close(self) -> None:
        """Stop the worker process, if one runs (a later hint starts a new one)."""
        worker = getattr(self, "_worker", None)
        if worker is not None:
            worker.close()

    def __del__(self) -> None:
        self.close()

    def hint(self, position: Position, roll: Roll | str, first_turn: bool = False) -> Hint:
        start = time.perf_counter()
        roll = Roll.from_any(roll)
        if position.variant != "short":
            raise RulesError(f"a {position.variant} nardy position given to {self.variant.title}")
        legal = self.variant.legal_plays(position, roll, first_turn)
        results = legal.boards()
        check_position(self.variant, position, roll)
        if not results:
            return Hint(position, roll, first_turn, (), self.name, seconds=time.perf_counter() - start)
        board = to_mover(position)
        if self.backend == "module":
            scored = self._rank_module(board, roll, list(results))
            name = self.name
        else:
            scored, shown_plies = self._rank_cli(position, roll, list(results))
            name = f"gnubg program {shown_plies}-ply"
        entries = []
        for b, (equity, chances) in scored.items():
            play = Play(Step(*s) for s in results[b])
            after = from_mover(b, position).with_turn(position.turn.other)
            entries.append((play, after, equity, chances, 1))
        return Hint(position, roll, first_turn, rank(entries), name, seconds=time.perf_counter() - start)

    # ------------------------------------------------------------------ backends
    def _rank_module(self, board: Board, roll: Roll, ours: list[Board]) -> dict[Board, tuple[float, Chances]]:
        assert self._worker is not None
        answer = self._worker.call(
            {"op": "moves", "board": gnubg_board(board), "dice": [roll.high, roll.low], "plies": self.plies}
        )
        scores: dict[Board, float] = {}
        for entry in answer["moves"]:
            scores.setdefault(apply_gnubg_move(board, entry["move"]), float(entry["score"]))
        wanted = set(ours)
        missing = [b for b in ours if b not in scores]
        # the opponent is on roll after each of our plays; gnubg evaluates from its side
        theirs = [gnubg_board(flip(b, "short")) for b in ours]
        evals = self._worker.call({"op": "evaluate", "boards": theirs, "plies": 0})["evals"]
        if missing:
            deep = self._worker.call(
                {
                    "op": "evaluate",
                    "boards": [gnubg_board(flip(b, "short")) for b in missing],
                    "plies": self.plies,
                }
            )["evals"]
            for b, e in zip(missing, deep, strict=True):
                scores[b] = -float(e[5])
        out: dict[Board, tuple[float, Chances]] = {}
        for b, e in zip(ours, evals, strict=True):
            w, wg, wbg, lg, lbg = (float(v) for v in e[:5])
            out[b] = (scores[b], Chances(1.0 - w, lg, lbg, wg, wbg))
        assert set(out) == wanted
        return out

    def _rank_cli(
        self, position: Position, roll: Roll, ours: list[Board]
    ) -> tuple[dict[Board, tuple[float, Chances]], int]:
        from nardy.rules.notation import to_gnubg_id

        assert self.program is not None
        script = "\n".join(
            [
                "set automatic game off",
                "set automatic roll off",
                f"set evaluation chequerplay evaluation plies {self.plies}",
                "set evaluation chequerplay evaluation cubeful off",
                "new game",
                "set turn 0",
                f"set board {to_gnubg_id(position)}",
                f"set dice {roll.high} {roll.low}",
                "hint 1000",
                "",
            ]
        )
        stdout = self._run_program(script)
        listed, plies = parse_cli_hint(stdout)
        out: dict[Board, tuple[float, Chances]] = {}
        for text, equity, chances in listed:
            try:
                after = position.apply(Play.from_text(text.replace("*", "")))  # hits follow from the board
            except ValueError as exc:
                raise GnubgError(f"cannot follow gnubg's play {text!r}: {exc}") from exc
            out.setdefault(to_mover(after, position.turn), (equity, chances))
        missing = [b for b in ours if b not in out]
        if missing:
            raise GnubgError(f"gnubg's hint left out {len(missing)} of our {len(ours)} legal plays")
        return {b: out[b] for b in ours}, plies

    def _run_program(self, script: str) -> str:
        """Run the gnubg program on ``script``; in its own process group, so a timeout ends all of it."""
        assert self.program is not None
        try:
            proc = subprocess.Popen(
                [self.program, "-t", "-q", "-r"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env={**os.environ, "LANG": "C", "LC_ALL": "C"},
                start_new_session=True,
            )
        except OSError as exc:
            raise GnubgError(f"could not run {self.program}: {exc}") from exc
        try:
            stdout, _ = proc.communicate(script, timeout=self.timeout)
        except subprocess.TimeoutExpired as exc:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise GnubgError(f"the gnubg program gave no answer in {self.timeout:g} s") from exc
        if proc.returncode != 0:
            raise GnubgError(f"the gnubg program failed (exit {proc.returncode})")
        return stdout


_CLI_MOVE = re.compile(r"^\s*\d+\.\s+Cube(?:less|ful)\s+(\d+)-ply\s+(.+?)\s+Eq\.:\s*([+-]?\d+\.\d+)")
_CLI_CHANCES = re.compile(
    r"^\s*(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s+-\s+(\d\.\d+)\s+(\d\.\d+)\s+(\d\.\d+)\s*$"
)


def parse_cli_hint(text: str) -> tuple[list[tuple[str, float, Chances]], int]:
    """The plays of gnubg's ``hint`` output with equities and chances, and the plies it used."""
    out: list[tuple[str, float, Chances]] = []
    plies = -1
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = _CLI_MOVE.match(line)
        if m is None:
            continue
        c = _CLI_CHANCES.match(lines[i + 1]) if i + 1 < len(lines) else None
        if c is None:
            raise GnubgError(f"gnubg's hint has no chances after {line.strip()!r}")
        w, wg, wbg, _lose, lg, lbg = (float(v) for v in c.groups())
        out.append((m.group(2), float(m.group(3)), Chances(w, wg, wbg, lg, lbg)))
        plies = max(plies, int(m.group(1)))
    if not out:
        raise GnubgError("the gnubg program listed no plays")
    return out, plies
