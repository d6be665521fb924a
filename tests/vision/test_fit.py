"""The detector's training boards: camouflaged boards put checkers of a point's own colour on it."""

from __future__ import annotations

import numpy as np

from nardy.vision.config import RecognizerConfig
from nardy.vision.fit import camouflage_set, sample_points
from nardy.vision.scene import synthetic_sample


def test_camouflaged_boards_put_checkers_of_a_points_colour_on_the_board() -> None:
    boards = camouflage_set(2, 1000, ["felt", "painted"], ["black_white", "red_white"])
    for sample in boards:
        meta = sample.meta["camouflage"]
        assert np.abs(np.subtract(meta["top"], meta["point"])).max() < 30
        side = meta["side"]
        assert any(stack.colour == side for row in ("top", "bottom") for stack in sample.layout.row(row))
    # seeded: the same boards again
    again = camouflage_set(2, 1000, ["felt", "painted"], ["black_white", "red_white"])
    assert all(np.array_equal(a.image, b.image) for a, b in zip(boards, again, strict=True))


def test_bare_points_bases_can_count_as_hard_negatives() -> None:
    sample = synthetic_sample(1000, 3)
    bare = sum(stack.count == 0 for row in ("top", "bottom") for stack in sample.layout.row(row))
    assert bare >= 4
    x0, y0 = sample_points(sample, RecognizerConfig(), np.random.default_rng(0))
    x1, y1 = sample_points(sample, RecognizerConfig(), np.random.default_rng(0), hard_bases=True)
    # the same places, only some easy negatives relabelled hard (a base beside a stack was hard already)
    assert len(y0) == len(y1)
    # (features computed twice agree to float32 rounding only: OpenCV's threads split the work anew)
    assert np.allclose(np.sort(x0, axis=0), np.sort(x1, axis=0), rtol=0, atol=1e-6)
    assert int((y1 == 1).sum()) == int((y0 == 1).sum())
    moved = int((y1 == 3).sum()) - int((y0 == 3).sum())
    assert 0 < moved <= bare
    assert int((y1 == 0).sum()) == int((y0 == 0).sum()) - moved
