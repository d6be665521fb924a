"""The detector's training boards: camouflaged boards put checkers of a point's own colour on it."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from nardy.vision.config import RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.fit import camouflage_set, camouflaged, hard_base_colours, sample_points
from nardy.vision.layout import BoardLayout
from nardy.vision.recognizer import Recognizer
from nardy.vision.rectify import rectify
from nardy.vision.scene import Sample, Scene, synthetic_sample
from nardy.vision.texture import point_parity


def _seen(sample: Sample, colour: str) -> NDArray[np.float64]:
    """(N, 3) mean BGR the camera shows round the centres of ``colour``'s checkers lying on the board."""
    rec = Recognizer(RecognizerConfig(), sample.corners, detector=Detector.load())
    maps = rec.prepare((sample.image.shape[1], sample.image.shape[0]))
    view = rectify(maps, sample.image).astype(float)
    s = maps.px_per_unit
    at = [(round(c.y * s), round(c.x * s)) for c in sample.checkers if c.colour == colour and c.level == 0]
    return np.array([view[y - 2 : y + 3, x - 2 : x + 3].mean(axis=(0, 1)) for y, x in at])


def test_a_camouflaged_style_draws_one_side_in_a_points_colour() -> None:
    scene = Scene.random(np.random.default_rng(5), family="felt", checker_set="black_white")
    layout = BoardLayout.short_start()
    before = scene.render(layout, rng=np.random.default_rng(0))
    # the first draw that changes a side's colour by more than lighting and glare blur
    for k in range(20):
        style, changed = camouflaged(scene.style, np.random.default_rng(k))
        was = getattr(scene.style, changed["side"]).top
        if np.abs(np.subtract(was, changed["top"])).max() > 80:
            break
    assert np.abs(np.subtract(was, changed["top"])).max() > 80
    assert changed["point"] == scene.style.points[changed["parity"]]
    scene.style = style
    after = scene.render(layout, rng=np.random.default_rng(0))
    side, top = changed["side"], np.array(changed["top"])
    other = "dark" if side == "light" else "light"
    # that side's checkers now look like the point's colour, as lit on this board; the other side's as before
    assert np.abs(_seen(after, side) - top).mean() < 0.5 * np.abs(_seen(before, side) - top).mean()
    assert np.abs(_seen(after, other) - _seen(before, other)).mean() < 1.0


def test_camouflaged_boards_are_seeded() -> None:
    boards = camouflage_set(2, 1000, ["felt", "painted"], ["black_white", "red_white"])
    again = camouflage_set(2, 1000, ["felt", "painted"], ["black_white", "red_white"])
    assert [b.meta["camouflage"] for b in boards] == [a.meta["camouflage"] for a in again]
    assert all(np.array_equal(a.image, b.image) for a, b in zip(boards, again, strict=True))


def test_bare_points_bases_can_count_as_hard_negatives() -> None:
    sample = synthetic_sample(1000, 3)
    bare = sum(stack.count == 0 for row in ("top", "bottom") for stack in sample.layout.row(row))
    assert bare >= 4
    x0, y0 = sample_points(sample, RecognizerConfig(), np.random.default_rng(0))
    x1, y1 = sample_points(sample, RecognizerConfig(), np.random.default_rng(0), hard_bases=(0, 1))
    # the same places, only some easy negatives relabelled hard (a base beside a stack was hard already)
    assert len(y0) == len(y1)
    # (features computed twice in one process can differ by about 1e-8: they agree to float32 rounding)
    assert np.allclose(np.sort(x0, axis=0), np.sort(x1, axis=0), rtol=0, atol=1e-6)
    assert int((y1 == 1).sum()) == int((y0 == 1).sum())
    moved = int((y1 == 3).sum()) - int((y0 == 3).sum())
    assert 0 < moved <= bare
    assert int((y1 == 0).sum()) == int((y0 == 0).sum()) - moved


def test_camouflage_bases_are_the_bare_bases_of_the_camouflaged_points_colour() -> None:
    plain = synthetic_sample(1000, 3)
    board = camouflage_set(1, 1000, ["felt", "painted"], ["black_white", "red_white"])[0]
    parity = board.meta["camouflage"]["parity"]
    assert hard_base_colours(plain, every=False, camouflaged=True) == ()
    assert hard_base_colours(plain, every=True, camouflaged=False) == (0, 1)
    assert hard_base_colours(board, every=False, camouflaged=True) == (parity,)
    assert hard_base_colours(board, every=False, camouflaged=False) == ()
    bare = [
        point_parity(row, i)
        for row in ("top", "bottom")
        for i, s in enumerate(board.layout.row(row))
        if s.count == 0
    ]
    assert bare.count(0) and bare.count(1)
    hard = {}
    for bases in ((), (0,), (1,), (0, 1)):
        _, y = sample_points(board, RecognizerConfig(), np.random.default_rng(0), hard_bases=bases)
        hard[bases] = int((y == 3).sum())
    # each colour's bases add their own hard negatives, and only theirs
    assert hard[(0,)] > hard[()] and hard[(1,)] > hard[()]
    assert hard[(0, 1)] - hard[()] == (hard[(0,)] - hard[()]) + (hard[(1,)] - hard[()])
