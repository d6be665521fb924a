"""Fast games and TD self-play."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nardy.hints.baselines import pip_heuristic_player, random_player
from nardy.hints.evaluator import Evaluator
from nardy.hints.fastgame import play_game
from nardy.hints.features import width
from nardy.hints.network import Adam, Network
from nardy.hints.td import self_play, td_step
from nardy.rules import find_variant


@pytest.mark.parametrize("variant", ["short", "long"])
def test_random_games_finish(variant: str) -> None:
    rng = random.Random(1)
    for g in range(6):
        players = (random_player(rng), pip_heuristic_player(rng))
        outcome = play_game(variant, players, rng, first=g % 2)
        assert outcome.winner in (0, 1)
        assert outcome.multiplier in (1, 2, 3)
        assert 20 < outcome.plies < 1000


def test_td_targets_and_step() -> None:
    variant = find_variant("long")
    net = Network.create("long", width("long"), 16, np.random.default_rng(2))
    ev = Evaluator(net, backgammons=False)
    game = self_play(ev, variant, random.Random(3))
    assert game.multiplier in (1, 2, 3)
    assert game.targets.shape == (len(game.boards), 5)
    assert game.targets.min() >= 0.0 and game.targets.max() <= 1.0
    # the last board belongs to the winner, whose target is the result itself
    assert game.targets[-1][0] == 1.0 and (game.targets[-1][1] == 1.0) == (game.multiplier >= 2)
    before = [p.copy() for p in net.params()]
    opt = Adam(net.params(), 1e-2)
    first = td_step(ev, opt, game)
    for _ in range(20):
        last = td_step(ev, opt, game)
    assert last < first
    assert any(not np.array_equal(a, b) for a, b in zip(before, net.params(), strict=True))
