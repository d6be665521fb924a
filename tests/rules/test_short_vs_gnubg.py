"""Short nardy move generation equals GNU Backgammon's on thousands of random positions."""

from __future__ import annotations

import pytest

from nardy.rules import Position, find_variant
from nardy.rules.board import to_mover
from nardy.rules.movegen import Board
from nardy.rules.sample import sample
from tests.rules.gnubg_oracle import gnubg_board, gnubg_results

gnubg = pytest.importorskip("gnubg_nn")

SHORT = find_variant("short")


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_same_results_as_gnubg(seed: int) -> None:
    cases = sample("short", 1000, seed=seed, scatter_share=0.35)
    assert len(cases) == 1000
    kinds = {"bar": 0, "bearoff": 0, "none": 0}
    for position, roll, _ in cases:
        ours = {gnubg_board(b) for b in SHORT.legal_plays(position, roll).boards()}
        theirs = gnubg_results(gnubg, position, roll)
        if not ours:
            # gnubg lists the unchanged position as the only "move" when none is possible
            assert theirs <= {gnubg_board(_start(position))}, (position, roll)
            kinds["none"] += 1
            continue
        assert ours == theirs, f"{position.json_text()} roll {roll}: {len(ours)} vs {len(theirs)}"
        if position.bar(position.turn):
            kinds["bar"] += 1
        if any(b[0] > _start(position)[0] for b in SHORT.legal_plays(position, roll).boards()):
            kinds["bearoff"] += 1
    # the sample really covers the hard corners
    print(kinds)
    assert kinds["bar"] >= 50 and kinds["bearoff"] >= 50 and kinds["none"] >= 5, kinds


def _start(position: Position) -> Board:
    return to_mover(position)
