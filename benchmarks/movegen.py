"""Legal play generation speed: ours for both variants, and GNU Backgammon's C generator.

Time per (position, roll) over a fixed seeded set of playout and scatter positions, best of
several repeats, one thread; our generator and gnubg's run in alternation, so a busy machine
slows both alike. "core" is the generator on the mover's board (what gnubg's
``moves()`` does: results as raw boards); "API" adds building ``Position`` objects through
``variant.legal_plays``. For short nardy the same cases go through gnubg-nn's ``moves()`` (C code
behind one Python call) and the table shows the ratio.

Run: ``python -m benchmarks.movegen [--n 2000] [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks._table import table, write
from nardy.rules import Position, Roll, find_variant
from nardy.rules.board import to_mover
from nardy.rules.movegen import Generator
from nardy.rules.sample import sample

Case = tuple[Position, Roll, bool]


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _ours(name: str, cases: list[Case]) -> tuple[Callable[[], object], Callable[[], object], float]:
    """Callables timing the core generator and the full API on ``cases``, and the mean play count."""
    variant = find_variant(name)
    prepared = []
    for position, roll, first in cases:
        start = to_mover(position)
        double = roll.high if roll.is_double else None
        prepared.append(
            (Generator(variant.gen_rules(), start, variant.head_limit(double, first)), start, roll)
        )

    def core() -> None:
        for gen, start, roll in prepared:
            gen.generate(start, roll.high, roll.low)

    def api() -> None:
        for position, roll, first in cases:
            list(variant.legal_plays(position, roll, first).positions())

    plays = sum(len(gen.generate(start, roll.high, roll.low)) for gen, start, roll in prepared)
    return core, api, plays / len(cases)


def _gnubg(cases: list[Case]) -> Callable[[], object] | None:
    try:
        import gnubg_nn
    except ImportError:
        return None
    from tests.rules.gnubg_oracle import gnubg_board

    boards = []
    for position, roll, _ in cases:
        opp, mover = gnubg_board(to_mover(position))
        boards.append(([list(opp), list(mover)], roll.high, roll.low))

    def theirs() -> None:
        for board, hi, lo in boards:
            gnubg_nn.moves(board, hi, lo)

    return theirs


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--n", type=int, default=2000, help="cases per variant")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    short_cases = sample("short", args.n, seed=args.seed)
    long_cases = sample("long", args.n, seed=args.seed)
    short_core, short_api, short_plays = _ours("short", short_cases)
    long_core, long_api, long_plays = _ours("long", long_cases)
    theirs = _gnubg(short_cases)
    timed: dict[str, Callable[[], object]] = {
        "short_core": short_core,
        "short_api": short_api,
        "long_core": long_core,
        "long_api": long_api,
    }
    if theirs is not None:
        timed["gnubg"] = theirs
    best = dict.fromkeys(timed, float("inf"))
    for _ in range(args.repeat):  # alternate, so that load on the machine falls on all alike
        for key, fn in timed.items():
            best[key] = min(best[key], _best(fn, 1))
    us = {key: value / args.n * 1e6 for key, value in best.items()}
    short: dict[str, Any] = {
        "variant": "short",
        "core_us": us["short_core"],
        "api_us": us["short_api"],
        "mean_plays": short_plays,
    }
    long: dict[str, Any] = {
        "variant": "long",
        "core_us": us["long_core"],
        "api_us": us["long_api"],
        "mean_plays": long_plays,
    }
    if theirs is not None:
        short["gnubg_us"] = us["gnubg"]
        short["ratio_vs_gnubg"] = us["short_core"] / us["gnubg"]
    long["ratio_vs_short"] = us["long_core"] / us["short_core"]

    headers = ["variant", "ours core µs", "ours API µs", "gnubg C µs", "ours/gnubg", "long/short", "plays"]
    rows = [
        [
            r["variant"],
            r["core_us"],
            r["api_us"],
            r.get("gnubg_us", "-"),
            r.get("ratio_vs_gnubg", "-"),
            r.get("ratio_vs_short", "-"),
            r["mean_plays"],
        ]
        for r in (short, long)
    ]
    print(table(headers, rows))
    print(
        f"\nper (position, roll); {args.n} seeded cases per variant (seed {args.seed}); best of {args.repeat}"
    )
    path = write("movegen", {"n": args.n, "seed": args.seed, "repeat": args.repeat, "rows": [short, long]})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
