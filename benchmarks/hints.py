"""How strong and how fast the hint engines are.

- Long nardy: our engine (the TD-trained network, 1 ply; optionally 2 plies) plays ``--games``
  games against the pip-count heuristic and against a random player, sides alternating, seeded
  dice. Win rate with a 95% interval and points per game.
- Short nardy: our own evaluator (no gnubg at play time) on the turns of seeded games that GNU
  Backgammon plays against itself (gnubg-nn's 0-ply best play, a random play one time in ten,
  another seed than training used). For each turn with a choice: does our 1-ply pick equal
  gnubg's, and how much equity does it give up as gnubg measures it -- at gnubg's 0-ply for every
  turn, and at gnubg's 2-ply for the first ``--deep`` turns (a loss below zero, where 2-ply gnubg
  likes our play better than its own pick, counts as zero). A random player is shown for scale.
- Time per hint: each engine on the same seeded positions (``nardy.rules.sample``), one thread.

Run: ``python -m benchmarks.hints [--games 1000] [--short-games 60] [--deep 300]``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from benchmarks._table import table, write
from nardy.hints.baselines import pip_heuristic_player, random_player
from nardy.hints.evaluator import Evaluator, shipped_network
from nardy.hints.fastgame import Player, legal_results, play_game
from nardy.hints.features import flip
from nardy.hints.gnubg_engine import apply_gnubg_move, gnubg_board
from nardy.hints.own_engine import OwnEngine
from nardy.rules import Position, Roll, find_variant
from nardy.rules.board import from_mover, to_mover
from nardy.rules.movegen import Board
from nardy.rules.sample import sample


# ----------------------------------------------------------------------------- long nardy games
def _own_player(engine: OwnEngine) -> Player:
    ev = engine.evaluator
    if engine.config.plies == 1:
        return lambda board, candidates, first: ev.best(candidates)

    def choose(board: Board, candidates: list[Board], first: bool) -> int:
        arr = np.array(candidates, dtype=np.int16)
        eq = ev.equity(ev.after_play(arr))
        order = [int(i) for i in np.argsort(-eq)[: engine.config.width]]
        deep = engine._two_ply(ev, [candidates[i] for i in order], 15 - sum(-n for n in board[1:25] if n < 0))
        return order[int(np.argmax(ev.equity(deep)))]

    return choose


def match(player: Player, opponent: Player, games: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    wins = points = 0
    gammons = 0
    for g in range(games):
        outcome = play_game("long", (player, opponent), rng, first=g % 2)
        if outcome.winner == 0:
            wins += 1
            points += outcome.multiplier
            gammons += outcome.multiplier >= 2
        elif outcome.winner == 1:
            points -= outcome.multiplier
    rate = wins / games
    z = 1.96  # Wilson's interval
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return {
        "games": games,
        "win_rate": rate,
        "ci95": [centre - half, centre + half],
        "points_per_game": points / games,
        "gammon_wins": gammons,
    }


# ----------------------------------------------------------------------------- short nardy vs gnubg
def teacher_turns(
    gnubg_nn: Any, games: int, seed: int, eps: float = 0.1
) -> list[tuple[list[list[int]], int, int]]:
    """The turns (gnubg board, dice) of seeded gnubg-nn self-play games with a choice of plays."""
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        side = [0] * 25
        for point, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
            side[point - 1] = n
        board = [list(side), list(side)]
        for ply in range(400):
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            while ply == 0 and d1 == d2:
                d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            _, listed = gnubg_nn.best_move(board, d1, d2, list=1)
            if not listed:
                board = [board[1], board[0]]
                continue
            if len(listed) > 1:
                out.append(([list(board[0]), list(board[1])], d1, d2))
            chosen = 0 if rng.random() >= eps else rng.randrange(len(listed))
            mover_after, opp = gnubg_nn.boardfromkey(listed[chosen][0])
            if sum(mover_after) == 0:
                break
            board = [list(mover_after), list(opp)]
    return out


def random_turns(n: int, seed: int) -> list[tuple[list[list[int]], int, int]]:
    """Turns with a choice from ``nardy.rules.sample``: random playouts and scattered checkers,
    positions unlike those gnubg's games (and so our training data) reach."""
    short = find_variant("short")
    out = []
    for position, roll, _ in sample("short", n, seed=seed):
        if position.complete and len(short.legal_plays(position, roll)) > 1:
            out.append((gnubg_board(to_mover(position)), roll.high, roll.low))
    return out


def _mover(board: list[list[int]]) -> Board:
    not_on_roll, on_roll = board
    b = [0] * 27
    b[0] = 15 - sum(on_roll)
    for q in range(1, 25):
        b[q] = on_roll[q - 1] - not_on_roll[24 - q]
    b[25], b[26] = on_roll[24], not_on_roll[24]
    return tuple(b)


def short_agreement(turns: list[tuple[list[list[int]], int, int]], deep: int, seed: int) -> dict[str, Any]:
    import gnubg

    short = find_variant("short")
    ev = Evaluator(shipped_network("short"))
    two_ply = OwnEngine("short", plies=2)
    cube = gnubg.cube_info()
    ctx0 = gnubg.eval_context(0, 0, 1, 0, 0.0)
    ctx2 = gnubg.eval_context(0, 2, 1, 1, 0.0)
    rng = random.Random(seed)

    def eq(result: Board, ctx: Any) -> float:
        return -float(gnubg.evaluate(tuple(gnubg_board(flip(result, "short"))), cube, ctx)[5])

    rows: dict[str, list[float]] = {
        k: [] for k in ("agree", "loss0", "rand0", "agree2", "loss2", "own2_loss2")
    }
    for n, (board, d1, d2) in enumerate(turns):
        mine = _mover(board)
        results = legal_results(short, mine, max(d1, d2), min(d1, d2), False)
        probs = ev.after_play(np.array(results, dtype=np.int16))
        pick = results[int(np.argmax(ev.equity(probs)))]
        scores = {}
        for m in gnubg.find_best_moves(tuple(board), cube, ctx0, (d1, d2)):
            scores.setdefault(apply_gnubg_move(mine, m["move"]), float(m["score"]))
        for r in results:  # gnubg lists every legal play at 0-ply; this is only a safeguard
            if r not in scores:
                scores[r] = eq(r, ctx0)
        best0 = max(scores.values())
        rows["agree"].append(float(scores[pick] >= best0 - 1e-6))
        rows["loss0"].append(best0 - scores[pick])
        rows["rand0"].append(best0 - scores[results[rng.randrange(len(results))]])
        if n < deep:
            top = apply_gnubg_move(mine, gnubg.find_best_moves(tuple(board), cube, ctx2, (d1, d2))[0]["move"])
            top_eq = eq(top, ctx2)
            rows["agree2"].append(float(pick == top))
            rows["loss2"].append(0.0 if pick == top else max(0.0, top_eq - eq(pick, ctx2)))
            position = _position_of(mine)
            hint = two_ply.hint(position, Roll(d1, d2))
            assert hint.best is not None
            own2 = _board_of(hint.best.position, position)
            rows["own2_loss2"].append(0.0 if own2 == top else max(0.0, top_eq - eq(own2, ctx2)))
    return {k: float(np.mean(v)) if v else None for k, v in rows.items()} | {
        "turns": len(turns),
        "deep_turns": min(deep, len(turns)),
    }


def _position_of(board: Board) -> Position:
    template = Position("short", (0,) * 24, off_black=15 - sum(-n for n in board[1:25] if n < 0) - board[26])
    return from_mover(board, template)


def _board_of(after: Position, before: Position) -> Board:
    return to_mover(after, before.turn)


# ----------------------------------------------------------------------------- timing
def time_hints(engine: Any, variant: str, n: int, seed: int) -> dict[str, float]:
    cases = [c for c in sample(variant, n, seed=seed)]
    engine.hint(*cases[0])  # load weights, start workers
    times = []
    for position, roll, first in cases:
        t0 = time.perf_counter()
        engine.hint(position, roll, first)
        times.append(time.perf_counter() - t0)
    times.sort()
    return {
        "n": len(times),
        "mean_ms": statistics.fmean(times) * 1e3,
        "median_ms": statistics.median(times) * 1e3,
        "p95_ms": times[int(0.95 * (len(times) - 1))] * 1e3,
        "max_ms": times[-1] * 1e3,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1000, help="long-nardy games against each opponent")
    parser.add_argument(
        "--games-2ply", type=int, default=0, help="long-nardy games at 2 plies (each opponent)"
    )
    parser.add_argument("--short-games", type=int, default=60, help="gnubg self-play games for short nardy")
    parser.add_argument("--deep", type=int, default=300, help="turns also measured with gnubg 2-ply")
    parser.add_argument("--short-random", type=int, default=2000, help="odd short-nardy positions to try")
    parser.add_argument("--timing", type=int, default=200, help="positions timed per engine")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"seed": args.seed}
    rows: list[list[Any]] = []

    # long nardy
    t0 = time.monotonic()
    long_net = shipped_network("long")
    for plies, games in ((1, args.games), (2, args.games_2ply)):
        if not games:
            continue
        ours = _own_player(OwnEngine("long", plies=plies))
        for name, opponent in (
            ("pip heuristic", pip_heuristic_player(random.Random(args.seed + 1))),
            ("random", random_player(random.Random(args.seed + 2))),
        ):
            r = match(ours, opponent, games, args.seed + plies)
            results[f"long_{plies}ply_vs_{name.replace(' ', '_')}"] = r
            lo, hi = r["ci95"]
            rows.append(
                [
                    f"long: own {plies}-ply vs {name}",
                    f"{r['win_rate']:.1%} of {games} games",
                    f"95% CI {lo:.1%}-{hi:.1%}; {r['points_per_game']:+.2f} points/game",
                ]
            )
    results["long_seconds"] = time.monotonic() - t0
    results["long_network"] = {k: v for k, v in long_net.info.items() if k != "eval_log"}

    # short nardy against gnubg
    try:
        import gnubg  # noqa: F401
        import gnubg_nn
    except ImportError:
        print("short nardy: gnubg or gnubg-nn is not installed; skipped")
    else:
        t0 = time.monotonic()
        turns = teacher_turns(gnubg_nn, args.short_games, args.seed)
        s = short_agreement(turns, args.deep, args.seed)
        odd = short_agreement(random_turns(args.short_random, args.seed), 0, args.seed)
        s["random_positions"] = odd
        s["seconds"] = time.monotonic() - t0
        results["short_vs_gnubg"] = s
        rows.append(
            [
                "short: own 1-ply picks gnubg 0-ply's best",
                f"{s['agree']:.1%}",
                f"{s['turns']} turns with a choice",
            ]
        )
        rows.append(
            [
                "short: own 1-ply equity lost / play (gnubg 0-ply)",
                f"{s['loss0']:.4f}",
                f"random play loses {s['rand0']:.3f}",
            ]
        )
        if s["deep_turns"]:
            deep = f"first {s['deep_turns']} of those turns"
            rows.append(["short: own 1-ply picks gnubg 2-ply's best", f"{s['agree2']:.1%}", deep])
            rows.append(["short: own 1-ply equity lost / play (gnubg 2-ply)", f"{s['loss2']:.4f}", deep])
            rows.append(["short: own 2-ply equity lost / play (gnubg 2-ply)", f"{s['own2_loss2']:.4f}", deep])
        rows.append(
            [
                "short, odd positions: own 1-ply equity lost / play (gnubg 0-ply)",
                f"{odd['loss0']:.4f}",
                f"{odd['turns']} random-playout and scattered positions; agrees {odd['agree']:.1%}; "
                f"random play loses {odd['rand0']:.3f}",
            ]
        )

    # time per hint
    from nardy.hints.engine import engine_for

    timings: dict[str, Any] = {}
    engines: list[tuple[str, Any, str, int]] = [
        ("own long 1-ply", OwnEngine("long", plies=1), "long", args.timing),
        ("own long 2-ply", OwnEngine("long", plies=2), "long", max(args.timing // 4, 1)),
        ("own short 1-ply", OwnEngine("short", plies=1), "short", args.timing),
        ("own short 2-ply", OwnEngine("short", plies=2), "short", max(args.timing // 4, 1)),
    ]
    gnubg_engine = engine_for("short", prefer="gnubg")
    engines.append(
        ("default short (" + gnubg_engine.name + ")", gnubg_engine, "short", max(args.timing // 4, 1))
    )
    for name, engine, variant, n in engines:
        t = time_hints(engine, variant, n, args.seed)
        timings[name] = t
        rows.append(
            [
                f"time per hint: {name}",
                f"{t['mean_ms']:.1f} ms mean",
                f"median {t['median_ms']:.1f}, p95 {t['p95_ms']:.1f}, max {t['max_ms']:.0f} ms; "
                f"{t['n']} positions",
            ]
        )
    results["timing"] = timings

    print(table(["measure", "result", "notes"], rows))
    path = write("hints", results)
    print(f"\nwrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
