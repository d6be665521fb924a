import numpy as np
import pytest

from nardy.vision.camera import look_at, pose_from_homography
from nardy.vision.geometry import BoardGeometry, apply_homography, homography_to_image
from nardy.vision.layout import BoardLayout, Counts, LayoutError, Stack, layout_errors


def test_points_tile_the_two_halves_with_the_bar_between() -> None:
    g = BoardGeometry()
    xs = [g.point_x(i) for i in range(12)]
    assert np.all(np.diff(xs) > 0)
    assert xs[0] == pytest.approx(g.point_width / 2)
    assert xs[11] == pytest.approx(1 - g.point_width / 2)
    assert xs[6] - xs[5] == pytest.approx(g.point_width + g.bar_width)
    assert g.line_capacity == 5
    tri = g.triangle("bottom", 3)
    assert tri[2, 1] == pytest.approx(g.height - g.point_len)


def test_homography_maps_corners_exactly() -> None:
    g = BoardGeometry()
    corners = np.array([[100.0, 80.0], [900.0, 120.0], [950.0, 700.0], [60.0, 650.0]])
    h = homography_to_image(g, corners)
    assert np.allclose(apply_homography(h, g.corners()), corners, atol=1e-6)


def test_pose_recovered_from_the_board_plane() -> None:
    g = BoardGeometry()
    cam = look_at(np.array([0.5, 0.4, 0.0]), 40.0, 10.0, 1.6, 2.0, 900.0, (1280, 720))
    h = cam.plane_homography(0.0)
    est = pose_from_homography(h, (1280, 720))
    assert est.k[0, 0] == pytest.approx(900.0, rel=0.02)
    lifted = np.array([[0.3, 0.2, -g.checker_height]])
    assert np.allclose(est.project(lifted), cam.project(lifted), atol=0.5)


def test_focal_length_of_distorted_oblique_views_from_their_corners() -> None:
    """Barrel distortion bends the corners off the pinhole's homography a little, and for some
    views one of the two equations for the focal length is nearly 0 = 0: taking the median of the
    two answers put one rendered game's camera (48 degrees, k1 -0.077, the board off to one side)
    at 1.57 times the truth, and its checkers' lifted tops half off the board. Solved together,
    views drawn as the renderer draws them and tilted 20 degrees or more are within 12%."""
    from nardy.vision.scene import CameraSpec, _fit_distance

    g = BoardGeometry()
    board = np.column_stack([g.corners(), np.zeros(4)])

    def ratio(spec: CameraSpec) -> float:
        cam, _ = _fit_distance(g, spec, (1280, 720))
        est = pose_from_homography(homography_to_image(g, cam.project(board)), (1280, 720))
        return float(est.k[0, 0] / cam.k[0, 0])

    seen = CameraSpec(48.0, -1.28, -4.42, 63.4, 0.727, -0.0773, (0.693, 0.047))
    assert ratio(seen) == pytest.approx(1.0, rel=0.02)
    rng = np.random.default_rng(7)
    specs = [
        CameraSpec(
            tilt=float(rng.uniform(20, 50)),
            azimuth=float(rng.normal(0, 12) if rng.random() < 0.75 else rng.uniform(-180, 180)),
            roll=float(rng.normal(0, 3)),
            fov=float(rng.uniform(45, 75)),
            fill=float(rng.uniform(0.7, 0.95)),
            k1=float(rng.uniform(-0.08, 0.03)),
            offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
        )
        for _ in range(300)
    ]
    assert max(abs(np.log([ratio(spec) for spec in specs]))) < np.log(1.12)


def test_layout_round_trips_through_json() -> None:
    layout = BoardLayout.random(np.random.default_rng(3))
    assert BoardLayout.from_json(layout.json()) == layout
    assert layout.total("light") == 15 and layout.total("dark") == 15
    assert layout_errors(layout, layout) == []


def test_layout_rejects_impossible_stacks() -> None:
    with pytest.raises(LayoutError):
        BoardLayout.from_json({"top": [{"light": 1, "dark": 1}] + [{}] * 11, "bottom": [{}] * 12})
    with pytest.raises(LayoutError):
        BoardLayout((Stack("light", 0),) + (Stack(None, 0),) * 11, (Stack(None, 0),) * 12)


def test_starting_positions_hold_fifteen_a_side() -> None:
    for layout in (BoardLayout.short_start(), BoardLayout.long_start()):
        assert layout.total("light") == 15 and layout.total("dark") == 15
    wrong = BoardLayout.from_points({("top", 0): ("light", 2)}, bar=Counts(1, 0))
    assert layout_errors(BoardLayout.empty(), wrong) == ["top[0]", "bar"]


def test_corners_must_go_round_the_playing_area() -> None:
    from nardy.vision.geometry import checked_corners

    good = [[100.0, 80.0], [900.0, 120.0], [950.0, 700.0], [60.0, 650.0]]
    assert checked_corners(good).shape == (4, 2)
    # a mirrored camera's picture turns the order round: still a board
    mirrored = [[1279 - x, y] for x, y in good]
    assert np.allclose(checked_corners(mirrored), mirrored)
    crossed = [good[0], good[1], good[3], good[2]]  # bottom-left and bottom-right swapped
    for bad in (crossed, [[0.0, 0.0]] * 4, [[10.0, 10.0], [20.0, 20.0], [30.0, 30.0], [40.0, 40.0]]):
        with pytest.raises(ValueError, match="do not go round the playing area"):
            checked_corners(bad)
    with pytest.raises(ValueError, match="finite"):
        checked_corners([[float("nan"), 0.0], *good[1:]])
    with pytest.raises(ValueError, match="four x,y points"):
        checked_corners([[1.0, 2.0, 3.0]])
