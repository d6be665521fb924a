"""Train an evaluation network by TD(lambda) self-play (TD-Gammon style) on one CPU core.

Usage (the shipped long-nardy weights):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python scripts/train_td.py --variant long \\
        --games 150000 --hours 1.5 --checkpoint /tmp/td-long.ckpt.npz --out nardy/hints/data/long.npz

Seeded and resumable: the checkpoint holds the weights, the optimiser, the dice generator and
the game count, and a rerun with the same ``--checkpoint`` carries on where it stopped. Every
``--eval-every`` games it plays ``--eval-games`` games (1 ply, fixed dice seed) against the
pip-count heuristic and prints the win rate. ``--out`` gets the final weights (network only).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from nardy.hints.baselines import pip_heuristic_player
from nardy.hints.evaluator import Evaluator
from nardy.hints.fastgame import play_game
from nardy.hints.features import width
from nardy.hints.network import Adam, Network
from nardy.hints.td import self_play, td_step
from nardy.rules import find_variant


def _rng_state(rng: random.Random) -> str:
    return json.dumps(rng.getstate())


def _set_rng_state(rng: random.Random, text: str) -> None:
    version, internal, gauss = json.loads(text)
    rng.setstate((version, tuple(internal), gauss))


def win_rate(evaluator: Evaluator, variant: str, games: int, seed: int) -> float:
    """The evaluator's (1-ply, greedy) share of wins against the pip-count heuristic."""
    rng = random.Random(seed)
    heuristic = pip_heuristic_player(random.Random(seed + 1))

    def ours(board: Any, candidates: list[Any], first_turn: bool) -> int:
        return evaluator.best(candidates)

    wins = 0
    for g in range(games):
        outcome = play_game(variant, (ours, heuristic), rng, first=g % 2)
        wins += outcome.winner == 0
    return wins / games


def save_checkpoint(
    path: Path, net: Network, opt: Adam, rng: random.Random, games: int, log: list[Any]
) -> None:
    tmp = path.with_suffix(".tmp.npz")
    np.savez(
        tmp,
        w1=net.w1,
        b1=net.b1,
        w2=net.w2,
        b2=net.b2,
        games=np.array(games),
        rng=np.array(_rng_state(rng)),
        log=np.array(json.dumps(log)),
        info=np.array(json.dumps(net.info)),
        **opt.state(),
    )
    tmp.replace(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--variant", default="long", choices=["long", "short"])
    parser.add_argument("--games", type=int, default=150_000, help="self-play games in all")
    parser.add_argument("--hours", type=float, default=None, help="stop after this much wall time")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--lam", type=float, default=0.7, help="TD lambda")
    parser.add_argument("--lr", type=float, default=1e-3, help="Adam step size at the start")
    parser.add_argument(
        "--lr-end", type=float, default=1e-4, help="step size after --games (geometric decay)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--checkpoint-every", type=int, default=2000)
    parser.add_argument("--eval-every", type=int, default=5000)
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--out", type=Path, required=True, help="where the final weights go")
    parser.add_argument(
        "--export", action="store_true", help="only write --out from the checkpoint as it stands, no training"
    )
    args = parser.parse_args(argv)

    variant = find_variant(args.variant)
    rng = random.Random(args.seed)
    net = Network.create(variant.name, width(variant.name), args.hidden, np.random.default_rng(args.seed))
    opt = Adam(net.params(), args.lr)
    done = 0
    log: list[Any] = []
    if args.checkpoint.exists():
        with np.load(args.checkpoint, allow_pickle=False) as data:
            for p, name in zip(net.params(), ("w1", "b1", "w2", "b2"), strict=True):
                p[...] = data[name]
            opt.load_state(data)
            done = int(data["games"])
            _set_rng_state(rng, str(data["rng"]))
            log = json.loads(str(data["log"]))
        print(f"resumed from {args.checkpoint} after {done} games", flush=True)
    elif args.export:
        parser.error(f"--export needs an existing --checkpoint ({args.checkpoint} is missing)")
    evaluator = Evaluator(net, backgammons=variant.name == "short")
    start = time.monotonic()
    window_loss = 0.0
    window_plies = 0
    window_games = 0
    window_start = time.monotonic()
    decay = (args.lr_end / args.lr) ** (1.0 / max(args.games, 1))
    while done < args.games and not args.export:
        if args.hours is not None and time.monotonic() - start > args.hours * 3600:
            print(f"time limit reached after {done} games", flush=True)
            break
        opt.lr = args.lr * decay**done
        game = self_play(evaluator, variant, rng, lam=args.lam)
        window_loss += td_step(evaluator, opt, game)
        window_plies += len(game.boards)
        window_games += 1
        done += 1
        if done % 500 == 0:
            rate = window_games / (time.monotonic() - window_start)
            print(
                f"games {done}  loss {window_loss / window_games:.4f}  plies/game "
                f"{window_plies / window_games:.1f}  lr {opt.lr:.2e}  {rate:.1f} games/s",
                flush=True,
            )
            window_loss, window_plies, window_games, window_start = 0.0, 0, 0, time.monotonic()
        if args.eval_every and done % args.eval_every == 0:
            t0 = time.monotonic()
            wr = win_rate(evaluator, variant.name, args.eval_games, seed=12345)
            log.append({"games": done, "vs_heuristic": wr, "seconds": round(time.monotonic() - start)})
            print(
                f"eval after {done} games: {wr:.1%} wins vs pip heuristic ({time.monotonic() - t0:.0f}s)",
                flush=True,
            )
        if done % args.checkpoint_every == 0:
            save_checkpoint(args.checkpoint, net, opt, rng, done, log)
    net.info = {
        "method": "TD(lambda) self-play",
        "script": "scripts/train_td.py",
        "games": done,
        "hidden": args.hidden,
        "lambda": args.lam,
        "lr": [args.lr, args.lr_end],
        "seed": args.seed,
        "eval_log": log,
    }
    if not args.export:
        save_checkpoint(args.checkpoint, net, opt, rng, done, log)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    net.save(args.out)
    print(f"wrote {args.out} after {done} games", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
