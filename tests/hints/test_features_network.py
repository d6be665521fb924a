"""Inputs, the network file and its arithmetic."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nardy.hints.evaluator import turn_round
from nardy.hints.features import encode, flip, position_board, width
from nardy.hints.network import Network, equity, swap_sides
from nardy.rules.board import to_mover
from nardy.rules.sample import sample


@pytest.mark.parametrize("variant", ["short", "long"])
def test_flip_is_the_other_sides_view(variant: str) -> None:
    for position, _, _ in sample(variant, 200, seed=11):
        mine = to_mover(position)
        theirs = to_mover(position, position.turn.other)
        opp_off = position.off(position.turn.other)
        assert flip(mine, variant, opp_off) == theirs
        assert flip(theirs, variant, position.off(position.turn)) == mine
        arr = np.array([mine], dtype=np.int16)
        assert tuple(turn_round(variant, arr, opp_off)[0]) == theirs


@pytest.mark.parametrize("variant", ["short", "long"])
def test_encoding_shape_and_range(variant: str) -> None:
    cases = sample(variant, 300, seed=12)
    boards = np.array([to_mover(p) for p, _, _ in cases], dtype=np.int16)
    offs = np.array([p.off(p.turn.other) for p, _, _ in cases], dtype=np.int16)
    x = encode(variant, boards, offs)
    assert x.shape == (len(cases), width(variant)) and x.dtype == np.float32
    assert np.isfinite(x).all() and x.min() >= -1.0 and x.max() <= 8.0
    # each row depends on its own board only
    assert np.array_equal(encode(variant, boards[:1], offs[:1]), x[:1])
    board, off = position_board(cases[0][0])
    assert board == tuple(boards[0]) and off == offs[0]
    with pytest.raises(ValueError):
        encode(variant, boards[:, :20])


def test_save_load_round_trip(tmp_path: Path) -> None:
    net = Network.create("long", width("long"), 16, np.random.default_rng(3))
    net.info = {"games": 5}
    net.save(tmp_path / "w.npz")
    back = Network.load(tmp_path / "w.npz")
    assert back.variant == "long" and back.info == {"games": 5} and back.hidden == 16
    x = np.random.default_rng(4).random((7, width("long")), dtype=np.float32)
    assert np.allclose(back.forward(x), net.forward(x))


def test_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(5)
    net = Network.create("short", 6, 4, rng)
    x = rng.random((9, 6), dtype=np.float32)
    t = rng.random((9, 5), dtype=np.float32)
    _, grads = net.gradients(x, t)
    for param, grad in zip(net.params(), grads, strict=True):
        flat = param.reshape(-1)
        for i in range(0, flat.size, max(1, flat.size // 5)):
            old = float(flat[i])
            flat[i] = old + 1e-2
            up = net.gradients(x, t)[0]
            flat[i] = old - 1e-2
            down = net.gradients(x, t)[0]
            flat[i] = old
            numeric = (up - down) / 2e-2
            assert abs(numeric - float(grad.reshape(-1)[i])) < 2e-3


def test_big_batches_equal_small_ones() -> None:
    net = Network.create("short", width("short"), 128, np.random.default_rng(6))
    x = np.random.default_rng(7).random((50, width("short")), dtype=np.float32)
    whole = net.forward(x)
    rows = np.vstack([net.forward(x[i : i + 1]) for i in range(50)])
    assert np.allclose(whole, rows, atol=1e-6)


def test_equity_and_sides() -> None:
    sure_gammon = np.array([[1.0, 1.0, 0.0, 0.0, 0.0]], dtype=np.float32)
    assert equity(sure_gammon)[0] == pytest.approx(2.0)
    assert equity(swap_sides(sure_gammon))[0] == pytest.approx(-2.0)
    koks = np.array([[1.0, 1.0, 1.0, 0.0, 0.0]], dtype=np.float32)
    assert equity(koks)[0] == pytest.approx(3.0)
    assert equity(koks, backgammons=False)[0] == pytest.approx(2.0)
    p = np.random.default_rng(8).random((20, 5), dtype=np.float32)
    assert np.allclose(swap_sides(swap_sides(p)), p)


def test_blas_thread_count_is_restored() -> None:
    from nardy.hints import blas

    rng = np.random.default_rng(9)
    x = rng.random((40, 30), dtype=np.float32)
    w = rng.random((30, 20), dtype=np.float32)
    assert np.allclose(blas.matmul(x, w, single=False), x @ w, atol=1e-5)
    controls = blas._controls()
    before = controls.get() if controls is not None else None
    with blas.one_thread() as single:
        assert single == (controls is not None)
        if controls is not None:
            assert controls.get() == 1
    if controls is not None:
        assert controls.get() == before
