"""GNU Backgammon as the engine: the same best play as gnubg-nn, checked inputs, and falling back
to our own engine when gnubg is missing, crashes, hangs or talks nonsense."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

from nardy.hints import FallbackEngine, engine_for
from nardy.hints.gnubg_engine import (
    GnubgEngine,
    GnubgError,
    GnubgInputError,
    GnubgUnavailable,
    check_position,
    gnubg_board,
    parse_cli_hint,
)
from nardy.hints.own_engine import OwnEngine
from nardy.rules import Position, Roll, find_variant
from nardy.rules.board import to_mover
from nardy.rules.sample import sample

HAS_MODULE = importlib.util.find_spec("gnubg") is not None
HAS_PROGRAM = os.path.exists("/usr/games/gnubg")
START = Position.initial("short")
SHORT = find_variant("short")


def _cases() -> list[tuple[Position, Roll, bool]]:
    return [c for c in sample("short", 40, seed=41, scatter_share=0.2) if SHORT.legal_plays(c[0], c[1])][:12]


@pytest.mark.gnubg
@pytest.mark.skipif(not HAS_MODULE, reason="needs the gnubg Python bindings")
def test_module_engine_agrees_with_gnubg_nn() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    engine = GnubgEngine("short", plies=0, backend="module")
    try:
        for position, roll, first in _cases():
            hint = engine.hint(position, roll, first)
            assert len(hint.plays) == len(SHORT.legal_plays(position, roll))
            board = gnubg_board(to_mover(position))
            _, key = gnubg_nn.best_move(board, roll.high, roll.low, b=1)
            not_on_roll, on_roll = gnubg_nn.boardfromkey(key)
            # gnubg-nn's key is seen from the opponent, who is on roll after the play
            theirs = next(
                p
                for p in hint.plays
                if gnubg_board(to_mover(p.position)) == [list(not_on_roll), list(on_roll)]
            )
            assert theirs.loss < 1e-3, (position.json_text(), roll, hint.best, theirs)
            assert hint.engine == "gnubg 0-ply"
        opening = engine.hint(START, "3-1")
        assert opening.best is not None and opening.best.play.text() == "8/5 6/5"
        assert opening.best.chances is not None and 0.5 < opening.best.chances.win < 0.6
    finally:
        engine.close()


@pytest.mark.gnubg
@pytest.mark.skipif(not HAS_PROGRAM, reason="needs Debian's gnubg program")
def test_program_engine_ranks_like_the_module() -> None:
    engine = GnubgEngine("short", plies=0, backend="cli")
    hint = engine.hint(START, "3-1")
    assert hint.engine == "gnubg program 0-ply"
    assert len(hint.plays) == 16 and hint.best is not None
    assert hint.best.play.text() == "8/5 6/5" and hint.best.equity == pytest.approx(0.159, abs=2e-3)


def test_positions_gnubg_cannot_take_are_refused() -> None:
    roll = Roll(3, 1)
    short_one = Position("short", START.points[:23] + (1,), off_black=0)
    with pytest.raises(GnubgInputError, match="14 checkers"):
        check_position(SHORT, short_one, roll)
    with pytest.raises(GnubgInputError, match="short nardy"):
        check_position(find_variant("long"), Position.initial("long"), roll)
    with pytest.raises(GnubgInputError, match="max_per_point"):
        check_position(find_variant("short", max_per_point=6), START, roll)
    check_position(SHORT, START, roll)


def _fallback(primary: GnubgEngine) -> FallbackEngine:
    return FallbackEngine(primary, OwnEngine("short"))


def test_crashing_worker_falls_back_to_our_engine() -> None:
    crash = [sys.executable, "-c", "import os; os.abort()"]
    engine = GnubgEngine("short", backend="module", worker_command=crash, timeout=5)
    with pytest.raises(GnubgError, match="died"):
        engine.hint(START, "3-1")
    hint = _fallback(engine).hint(START, "3-1")
    assert hint.engine == "own short 1-ply" and hint.note is not None and "died" in hint.note
    assert len(hint.plays) == 16


def test_silent_worker_times_out() -> None:
    hang = [sys.executable, "-c", "import time; time.sleep(60)"]
    engine = GnubgEngine("short", backend="module", worker_command=hang, timeout=0.5, start_timeout=0.5)
    with pytest.raises(GnubgError, match="no answer"):
        engine.hint(START, "3-1")
    hint = _fallback(engine).hint(START, "3-1")
    assert hint.engine.startswith("own") and hint.note is not None and "no answer" in hint.note
    engine.close()


def _program(tmp_path: Path, body: str) -> str:
    path = tmp_path / "gnubg"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("kill -SEGV $$", "failed"),
        ("echo 'nothing to see'", "listed no plays"),
        ("sleep 30", "no answer"),
        (
            "echo '    1. Cubeless 0-ply   8/5 6/5   Eq.: +0.159'; echo '0.5 0.1 0.0 - 0.5 0.1 0.0'",
            "left out 15",
        ),
    ],
)
def test_broken_program_falls_back(tmp_path: Path, body: str, message: str) -> None:
    engine = GnubgEngine("short", backend="cli", program=_program(tmp_path, body), timeout=1.0)
    with pytest.raises(GnubgError, match=message):
        engine.hint(START, "3-1")
    hint = _fallback(engine).hint(START, "3-1")
    assert hint.engine.startswith("own") and hint.note is not None


def test_absent_gnubg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    monkeypatch.setattr("nardy.hints.gnubg_engine.shutil.which", lambda name: None)
    monkeypatch.setattr("nardy.hints.gnubg_engine.DEBIAN_PROGRAM", "/nonexistent/gnubg")
    with pytest.raises(GnubgUnavailable):
        GnubgEngine("short")
    engine = engine_for("short")
    hint = engine.hint(START, "3-1")
    assert hint.engine == "own short 1-ply"
    assert hint.note is not None and "not installed" in hint.note


def test_engine_for_sends_bad_positions_to_our_engine() -> None:
    """A 14-checker practice position is refused by the gnubg check, answered by our network."""
    short_one = Position("short", START.points[:23] + (1,), off_black=0)
    hint = engine_for("short").hint(short_one, "3-1")
    assert hint.engine.startswith("own") and hint.note is not None and "14 checkers" in hint.note


def test_parse_cli_hint() -> None:
    text = (
        "    1. Cubeless 2-ply   8/5 6/5                      Eq.: +0.159\n"
        "       0.551 0.174 0.013 - 0.449 0.124 0.005\n"
        "    2. Cubeless 0-ply   bar/22* 13/8*(2)             Eq.: -0.009 (-0.168)\n"
        "       0.497 0.137 0.008 - 0.503 0.140 0.007\n"
    )
    plays, plies = parse_cli_hint(text)
    assert plies == 2 and [p[0] for p in plays] == ["8/5 6/5", "bar/22* 13/8*(2)"]
    assert plays[1][1] == pytest.approx(-0.009) and plays[0][2].win == pytest.approx(0.551)


def test_a_failed_engine_is_rested() -> None:
    calls = []

    class Broken:
        name = "broken"

        def hint(self, position: Position, roll: Roll | str, first_turn: bool = False) -> object:
            calls.append(1)
            raise RuntimeError("segfault")

    engine = FallbackEngine(Broken(), OwnEngine("short"), rest=60.0)  # type: ignore[arg-type]
    for _ in range(3):
        hint = engine.hint(START, "3-1")
        assert hint.note == "broken unavailable: segfault"
    assert len(calls) == 1
