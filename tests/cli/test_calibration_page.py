"""The dashboard's calibration page on a real rendered frame: what it says it sees on the board."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nardy.cli._calibration import LiveCalibration
from nardy.vision.layout import EMPTY, BoardLayout, Counts, Stack
from nardy.vision.scene import Scene


def test_the_rectified_preview_counts_the_checkers_on_the_board_not_the_fifteen_a_side(
    tmp_path: Path,
) -> None:
    # two light checkers borne off: the page should say two may be hidden or off the board
    start = BoardLayout.short_start()
    assert start.top[11] == Stack("light", 2)
    layout = BoardLayout((*start.top[:11], EMPTY), start.bottom, off=Counts(2, 0))
    scene = Scene.random(
        np.random.default_rng(4), size=(1280, 720), family="felt", checker_set="black_white", tilt=(5.0, 5.0)
    )
    sample = scene.render(layout)
    page = LiveCalibration(lambda: sample.image, lambda profile: None, tmp_path, "short")
    page.snapshot()
    corners = tuple((float(x), float(y)) for x, y in sample.corners)
    note = page.rectify(corners).note  # type: ignore[arg-type]
    assert note == "read 13 light and 15 dark checkers: 2 may be hidden or off the board"


def test_a_profile_saved_from_the_page_holds_the_hinge_of_a_folding_board(tmp_path: Path) -> None:
    from nardy.calibration.profile import Profile
    from nardy.vision.geometry import BoardGeometry

    scene = Scene.random(
        np.random.default_rng(14),
        size=(960, 540),
        family="walnut",
        tilt=(15.0, 15.0),
        geometry=BoardGeometry(bar_width=0.04),
        harsh=0.5,
    )
    sample = scene.render(BoardLayout.long_start())
    page = LiveCalibration(lambda: sample.image, lambda profile: None, tmp_path, "long")
    page.snapshot()
    corners = tuple((float(x), float(y)) for x, y in sample.corners)
    saved = Profile.load(page.save_profile("folding", corners))  # type: ignore[arg-type]
    assert abs(saved.geometry.bar_width - 0.04) <= 0.01
