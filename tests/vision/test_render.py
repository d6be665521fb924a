from dataclasses import replace

import numpy as np

from nardy.vision.layout import BoardLayout
from nardy.vision.render import Hand
from nardy.vision.scene import Scene, synthetic_set


def test_scene_renders_deterministically_with_corners_inside_the_frame() -> None:
    a = Scene.random(np.random.default_rng(5), size=(480, 270))
    b = Scene.random(np.random.default_rng(5), size=(480, 270))
    sa = a.render(BoardLayout.short_start(), rng=np.random.default_rng(1))
    sb = b.render(BoardLayout.short_start(), rng=np.random.default_rng(1))
    assert sa.image.shape == (270, 480, 3) and sa.image.dtype == np.uint8
    assert np.array_equal(sa.image, sb.image)
    assert np.all(sa.corners >= 0) and np.all(sa.corners[:, 0] <= 480) and np.all(sa.corners[:, 1] <= 270)
    assert sa.settled


def test_a_frame_drawn_with_its_own_noise_leaves_the_scenes_video_as_it_was() -> None:
    # a calibration still taken before a game must not change the frames of the game after it
    a = Scene.random(np.random.default_rng(5), size=(320, 180))
    b = Scene.random(np.random.default_rng(5), size=(320, 180))
    start = BoardLayout.short_start()
    b.render(start, rng=np.random.default_rng(3))
    for _ in range(2):
        assert np.array_equal(a.render(start).image, b.render(start).image)
    # ... while frames drawn with the scene's own noise differ from one to the next
    assert not np.array_equal(a.render(start).image, a.render(start).image)


def test_checkers_change_the_picture_where_they_lie() -> None:
    scene = Scene.random(np.random.default_rng(8), size=(480, 270), tilt=(0.0, 0.0))
    empty = scene.render(BoardLayout.empty(), rng=np.random.default_rng(0)).image.astype(float)
    full = scene.render(BoardLayout.from_points({("top", 2): ("dark", 3)}), rng=np.random.default_rng(0))
    g = scene.geometry
    inside = scene.project(np.array([g.slot("top", 2, 1)]))[0].astype(int)
    far = scene.project(np.array([g.slot("bottom", 9, 1)]))[0].astype(int)
    diff = np.abs(full.image.astype(float) - empty).sum(axis=2)
    assert diff[inside[1], inside[0]] > 40
    assert diff[far[1], far[0]] < 40


def test_a_hand_makes_the_sample_unsettled() -> None:
    scene = Scene.random(np.random.default_rng(9), size=(480, 270))
    sample = scene.render(BoardLayout.long_start(), hands=[Hand(0.4, 0.3)])
    assert not sample.settled


def test_synthetic_set_cycles_styles() -> None:
    samples = list(synthetic_set(4, 3, size=(320, 180)))
    assert [s.meta["family"] for s in samples] == ["felt", "walnut", "oak", "painted"]
    assert all(s.layout.total("light") == 15 for s in samples)


def test_points_far_off_the_frame_are_drawn_without_overflow() -> None:
    """An arm reaching from behind the camera projects to huge or non-finite pixels."""
    from nardy.vision.render import _fix

    wild = np.array([[np.nan, 3.0], [np.inf, -np.inf], [1e30, -1e30], [10.5, 20.25]])
    fixed = _fix(wild)
    assert fixed.dtype == np.int32
    assert fixed[3].tolist() == [168, 324]
    assert np.all(np.abs(fixed) <= 1e6 * 16)


def test_an_ornament_marks_the_field_between_the_points_and_nothing_else() -> None:
    import cv2
    import pytest

    from nardy.vision.geometry import POINTS_PER_ROW, ROWS, BoardGeometry
    from nardy.vision.style import Ornament, random_style
    from nardy.vision.texture import board_texture

    style = random_style(np.random.default_rng(8), "walnut")
    medallion = Ornament(contrast=0.4, radius=0.35, rings=2, petals=8, line=0.005, filled=False)
    g = BoardGeometry()
    plain, to_px = board_texture(g, style, np.random.default_rng(1), 600.0)
    decorated, _ = board_texture(g, replace(style, ornament=medallion), np.random.default_rng(1), 600.0)
    darker = (plain - decorated).sum(axis=2)
    # where the field shows: the playing area less the bar and the points (drawn over the carving)
    field = np.zeros(darker.shape, np.uint8)
    corners = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, g.height], [0.0, g.height]])

    def px(p: np.ndarray) -> np.ndarray:
        return np.round(p @ to_px[:2, :2].T + to_px[:2, 2]).astype(np.int32)

    cv2.fillPoly(field, [px(corners)], 1)
    bar = np.array([[g.half_width, 0.0], [g.half_width + g.bar_width, 0.0]])
    cv2.fillPoly(field, [px(np.vstack([bar, bar[::-1] + [0.0, g.height]]))], 0)
    for row in ROWS:
        for i in range(POINTS_PER_ROW):
            cv2.fillPoly(field, [px(g.triangle(row, i))], 0)
    near = cv2.dilate(field, np.ones((5, 5), np.uint8)) > 0  # (the outlines are antialiased)
    assert (darker[field > 0] > 20).sum() > 2000  # the carving shows on the field ...
    assert np.abs(darker[~near]).max() < 1e-3  # ... and nowhere else
    # in both halves, round each half's middle
    ys, xs = np.nonzero(darker > 20)
    centres = [
        px(np.array([[x0 + g.half_width / 2, g.height / 2]]))[0] for x0 in (0.0, g.half_width + g.bar_width)
    ]
    reach = (0.35 * g.half_width + 0.005) * to_px[0, 0] + 1.5  # the outer ring, its line and antialiasing
    nearest = np.min([np.hypot(xs - cx, ys - cy) for cx, cy in centres], axis=0)
    assert nearest.max() <= reach
    assert all(np.any(np.hypot(xs - cx, ys - cy) < reach) for cx, cy in centres)
    with pytest.raises(ValueError, match="contrast"):
        Ornament(contrast=1.5, radius=0.3, rings=1, petals=0, line=0.004, filled=False)
