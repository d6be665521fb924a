"""Our own engine: every legal play ranked once, best first; the shipped weights; 2 plies by hand."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nardy.hints import Chances, Hint, engine_for
from nardy.hints.baselines import random_player
from nardy.hints.evaluator import Evaluator, shipped_network
from nardy.hints.fastgame import play_game
from nardy.hints.features import width
from nardy.hints.network import Network, equity, swap_sides
from nardy.hints.own_engine import ROLLS, OwnEngine
from nardy.rules import Position, Roll, find_variant
from nardy.rules.sample import sample


def check_ranking(hint: Hint, variant: str) -> None:
    legal = find_variant(variant).legal_plays(hint.position, hint.roll, hint.first_turn)
    assert len(hint.plays) == len(legal)
    assert {p.play for p in hint.plays} == set(legal)
    if not legal:
        assert hint.best is None
        return
    for entry in hint.plays:
        assert legal.result_of(entry.play) == entry.position
        assert -3.0 <= entry.equity <= 3.0 and entry.loss >= 0.0
        assert entry.chances is not None
        c = entry.chances
        assert all(
            0.0 <= v <= 1.0 for v in (c.win, c.win_gammon, c.win_backgammon, c.lose_gammon, c.lose_backgammon)
        )
    deep = [p.equity for p in hint.plays if p.plies == hint.plays[0].plies]
    assert deep == sorted(deep, reverse=True)
    assert hint.plays[0].loss == 0.0


@pytest.mark.parametrize("variant", ["short", "long"])
@pytest.mark.parametrize("plies", [1, 2])
def test_every_legal_play_ranked_once(variant: str, plies: int) -> None:
    engine = OwnEngine(variant, plies=plies, width=3)
    for position, roll, first in sample(variant, 40 if plies == 1 else 8, seed=21):
        hint = engine.hint(position, roll, first)
        assert hint.engine == f"own {variant} {plies}-ply"
        check_ranking(hint, variant)


def test_no_play_gives_an_empty_hint() -> None:
    # white's last checker on the bar, black holds every entry point
    points = [0] * 24
    for p in range(19, 25):
        points[p - 1] = -2
    points[0] = 14
    position = Position("short", tuple(points), bar_white=1, off_black=3)
    hint = OwnEngine("short").hint(position, "6-5")
    assert hint.plays == () and hint.best is None


@pytest.mark.parametrize("variant", ["short", "long"])
def test_shipped_weights_are_trained(variant: str) -> None:
    net = shipped_network(variant)
    assert net.variant == variant and net.inputs == width(variant)
    assert net.info.get("games", 0) >= 1000
    # a trained evaluator knows that being far ahead in the race is good
    ev = Evaluator(net)
    start = find_variant(variant).initial_position()
    ahead = OwnEngine(variant).evaluate(start)
    assert 0.2 < ahead.win < 0.8
    del ev


def test_long_engine_beats_random_play() -> None:
    ev = Evaluator(shipped_network("long"), backgammons=False)
    rng = random.Random(9)

    def ours(board: tuple[int, ...], candidates: list[tuple[int, ...]], first: bool) -> int:
        return ev.best(candidates)

    wins = sum(play_game("long", (ours, random_player(rng)), rng, first=g % 2).winner == 0 for g in range(12))
    assert wins >= 11


def test_opening_hint() -> None:
    hint = engine_for("long", prefer="own").hint(Position.initial("long"), "6-5", first_turn=True)
    assert [p.play.text() for p in hint.plays] == ["24/13"]
    assert hint.to_json()["plays"][0]["play"] == "24/13"


def _vector(chances: Chances) -> np.ndarray:
    return np.array(
        [
            [
                chances.win,
                chances.win_gammon,
                chances.win_backgammon,
                chances.lose_gammon,
                chances.lose_backgammon,
            ]
        ],
        dtype=np.float32,
    )


@pytest.mark.parametrize("case", [1, 3])
def test_two_ply_by_hand(case: int) -> None:
    """The 2-ply chances of a play are the average, over the opponent's rolls, of the chances after
    its best reply -- computed here through the Position API and the 1-ply engine."""
    net = Network.create("long", width("long"), 8, np.random.default_rng(4))
    variant = find_variant("long")
    engine1 = OwnEngine(variant, network=net, plies=1)
    engine2 = OwnEngine(variant, network=net, plies=2, width=2)
    position, roll, first = sample("long", 5, seed=30)[case]
    hint2 = engine2.hint(position, roll, first)
    for entry in hint2.plays[:2]:
        assert entry.plies == 2
        total = np.zeros((1, 5))
        for high, low, weight in ROLLS:
            replies = engine1.hint(entry.position, Roll(high, low))
            if replies.plays:
                assert replies.plays[0].chances is not None
                total += weight * swap_sides(_vector(replies.plays[0].chances))
            else:  # the opponent passes: we are on roll in the same position
                total += weight * _vector(engine1.evaluate(entry.position.with_turn(position.turn)))
        assert entry.equity == pytest.approx(
            float(equity(total.astype(np.float32), backgammons=False)[0]), abs=1e-4
        )
