from __future__ import annotations

import numpy as np
import pytest

from nardy.calibration.config import FinderConfig
from nardy.calibration.finder import find_board, name_corners
from nardy.vision.layout import BoardLayout
from nardy.vision.scene import Scene
from tests.calibration.scenes import add_clutter, corner_error

SIZE = (960, 540)


def _scene(seed: int, tilt: float, family: str) -> Scene:
    return Scene.random(np.random.default_rng(seed), size=SIZE, family=family, tilt=(tilt, tilt), harsh=0.5)


@pytest.mark.parametrize(
    ("tilt", "family", "seed"),
    [(0.0, "felt", 24), (20.0, "painted", 22), (35.0, "walnut", 23), (50.0, "felt", 24)],
)
def test_the_board_is_found_to_a_few_pixels_at_each_view_angle(tilt: float, family: str, seed: int) -> None:
    scene = _scene(seed, tilt, family)
    sample = scene.render(BoardLayout.short_start(), rng=np.random.default_rng(seed))
    found = find_board(FinderConfig(), sample.image)
    err = corner_error(found.corners, sample.corners)
    print(f"tilt {tilt}: corner error {err:.2f} px, confidence {found.confidence:.2f}")
    assert err < 4.0
    assert found.ok


def test_clutter_beside_the_board_does_not_distract_it() -> None:
    scene = _scene(22, 20.0, "painted")
    rng = np.random.default_rng(3)
    sample = scene.render(BoardLayout.short_start(), rng=rng)
    image = add_clutter(sample.image, scene, rng, count=10)
    found = find_board(FinderConfig(), image)
    assert corner_error(found.corners, sample.corners) < 4.0 and found.ok


def test_no_board_gives_low_confidence() -> None:
    rng = np.random.default_rng(5)
    scene = _scene(31, 10.0, "oak")
    empty_table = scene.render(BoardLayout.empty(), rng=rng).image.copy()
    # cover the board with the table's own colour: what is left is a table and clutter
    table = np.full_like(empty_table, empty_table[5, 5])
    image = add_clutter(table, scene, rng, count=8)
    noise = rng.normal(0, 6, image.shape)
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    found = find_board(FinderConfig(), image)
    assert not found.ok and found.confidence < 0.5


def test_corner_names_follow_the_previous_ones() -> None:
    c = np.array([[10.0, 10.0], [110.0, 12.0], [108.0, 90.0], [12.0, 88.0]])
    turned = np.roll(c, 2, axis=0)
    assert np.array_equal(name_corners(turned), c)  # upright by default
    assert np.array_equal(name_corners(c, previous=turned + 1.0), turned)


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="uint8 BGR"):
        find_board(FinderConfig(), np.zeros((10, 10), np.uint8))
