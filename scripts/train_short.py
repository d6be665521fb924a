"""Train the short-nardy evaluation network to imitate GNU Backgammon (supervised), on one core.

GNU Backgammon (the PyPI ``gnubg-nn`` evaluator) is used only as a teacher here: it plays
seeded games against itself (its 0-ply best play, a random legal play now and then for
variety), and at each turn the positions after a sample of the legal plays are labelled with
gnubg's chances for the side then on roll (at ``--label-plies``). The network learns those
chances; the shipped engine then runs without gnubg.

Held-out games (another seed) measure what matters: how often the network's 1-ply choice is
gnubg's, and how much equity its choices give up as gnubg's 0-ply evaluation sees them.

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python scripts/train_short.py \\
        --games 1200 --epochs 12 --out nardy/hints/data/short.npz

Resumable in part: the labelled data is cached in ``--data`` and reused when present.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from nardy.hints.evaluator import Evaluator
from nardy.hints.features import encode, width
from nardy.hints.network import Adam, Network
from nardy.rules.movegen import Board

GnubgSides = tuple[Sequence[int], Sequence[int]]


def mover_board(not_on_roll: Sequence[int], on_roll: Sequence[int]) -> Board:
    """gnubg's ``[player not on roll, player on roll]`` as the side on roll's mover board."""
    b = [0] * 27
    b[0] = 15 - sum(on_roll)
    for q in range(1, 25):
        b[q] = on_roll[q - 1] - not_on_roll[24 - q]
    b[25] = on_roll[24]
    b[26] = not_on_roll[24]
    return tuple(b)


def start() -> list[list[int]]:
    side = [0] * 25
    for point, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
        side[point - 1] = n
    return [list(side), list(side)]


def self_play(
    gnubg: Any, rng: random.Random, games: int, per_turn: int, eps: float, label_plies: int
) -> tuple[NDArray[np.int8], NDArray[np.float32], list[tuple[list[list[int]], int, int]]]:
    """Labelled positions (mover boards, gnubg's chances) and the turns they came from."""
    boards: list[Board] = []
    labels: list[Sequence[float]] = []
    turns: list[tuple[list[list[int]], int, int]] = []
    for _ in range(games):
        board = start()
        for ply in range(400):
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            if ply == 0:
                while d1 == d2:
                    d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            _, listed = gnubg.best_move(board, d1, d2, list=1)
            if not listed:
                board = [board[1], board[0]]  # no play: the turn passes
                continue
            turns.append(([list(board[0]), list(board[1])], d1, d2))
            chosen = 0 if rng.random() >= eps else rng.randrange(len(listed))
            picks = set(rng.sample(range(len(listed)), min(per_turn, len(listed)))) | {0, chosen}
            for i in picks:
                after_mover, after_opp = gnubg.boardfromkey(listed[i][0])
                if sum(after_mover) == 0:
                    continue  # the mover bore off its last checker: the game is decided
                # (the chances in gnubg-nn's list are not filled in when there is a single play)
                probs = gnubg.probabilities([list(after_mover), list(after_opp)], label_plies)
                boards.append(mover_board(after_mover, after_opp))
                labels.append(probs)
            mover_after, opp = gnubg.boardfromkey(listed[chosen][0])
            if sum(mover_after) == 0:
                break
            board = [list(mover_after), list(opp)]
    return np.array(boards, dtype=np.int8), np.array(labels, dtype=np.float32), turns


def choice_loss(
    gnubg: Any, evaluator: Evaluator, turns: list[tuple[list[list[int]], int, int]]
) -> tuple[float, float, int]:
    """Agreement with gnubg's 0-ply best play, and the mean equity lost as gnubg's 0-ply sees it,
    over the turns with a choice."""
    agree = 0
    lost = 0.0
    n = 0
    for board, d1, d2 in turns:
        _, listed = gnubg.best_move(board, d1, d2, list=1)
        if len(listed) < 2:
            continue
        results = []
        for key, _move, _probs, _eq in listed:
            mover_after, opp = gnubg.boardfromkey(key)
            results.append(mover_board(opp, mover_after))  # the mover's own view after its play
        probs = evaluator.after_play(np.array(results, dtype=np.int16))
        pick = int(np.argmax(evaluator.equity(probs)))
        n += 1
        agree += pick == 0
        lost += float(listed[0][3] - listed[pick][3])
    return agree / max(n, 1), lost / max(n, 1), n


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=1200, help="teacher self-play games for training data")
    parser.add_argument("--test-games", type=int, default=60, help="held-out games for the final check")
    parser.add_argument(
        "--per-turn", type=int, default=10, help="labelled results per turn (plus gnubg's choice)"
    )
    parser.add_argument("--eps", type=float, default=0.1, help="share of random plays in the teacher's games")
    parser.add_argument("--label-plies", type=int, default=0, help="gnubg's depth for the labels")
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--lr", type=float, default=2e-3)
    parser.add_argument("--lr-end", type=float, default=1e-4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--data", type=Path, default=Path("/tmp/nardy-short-data.npz"), help="labelled data cache"
    )
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    import gnubg_nn

    t0 = time.monotonic()
    if args.data.exists():
        with np.load(args.data) as data:
            boards, labels = data["boards"], data["labels"]
        print(f"loaded {len(boards)} labelled positions from {args.data}", flush=True)
    else:
        boards, labels, _ = self_play(
            gnubg_nn, random.Random(args.seed), args.games, args.per_turn, args.eps, args.label_plies
        )
        np.savez(args.data, boards=boards, labels=labels)
        print(
            f"labelled {len(boards)} positions from {args.games} games in {time.monotonic() - t0:.0f}s",
            flush=True,
        )
    _, _, test_turns = self_play(gnubg_nn, random.Random(args.seed + 1000), args.test_games, 0, args.eps, 0)

    rng = np.random.default_rng(args.seed)
    net = Network.create("short", width("short"), args.hidden, rng)
    evaluator = Evaluator(net)
    opt = Adam(net.params(), args.lr)
    n = len(boards)
    order = np.arange(n)
    steps = args.epochs * (n // args.batch)
    decay = (args.lr_end / args.lr) ** (1.0 / max(steps, 1))
    step = 0
    for epoch in range(1, args.epochs + 1):
        rng.shuffle(order)
        total = 0.0
        for i in range(0, n - args.batch + 1, args.batch):
            idx = order[i : i + args.batch]
            opt.lr = args.lr * decay**step
            loss, grads = net.gradients(encode("short", boards[idx]), labels[idx])
            opt.step(grads)
            total += loss
            step += 1
        agree, lost, decisions = choice_loss(gnubg_nn, evaluator, test_turns)
        print(
            f"epoch {epoch}  loss {total / max(n // args.batch, 1):.4f}  held-out: agrees with gnubg "
            f"{agree:.1%}, loses {lost:.4f} a decision ({decisions} decisions)  {time.monotonic() - t0:.0f}s",
            flush=True,
        )
    net.info = {
        "method": "supervised from GNU Backgammon (gnubg-nn) evaluations of teacher self-play positions",
        "script": "scripts/train_short.py",
        "games": args.games,
        "positions": int(n),
        "label_plies": args.label_plies,
        "hidden": args.hidden,
        "epochs": args.epochs,
        "seed": args.seed,
        "held_out": {"agreement": round(agree, 4), "mean_loss": round(lost, 4), "decisions": decisions},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    net.save(args.out)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
