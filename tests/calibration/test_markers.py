from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from nardy.calibration.markers import (
    MarkerError,
    SheetConfig,
    corners_from_markers,
    detect_markers,
    learn_markers,
    marker_sheet,
    write_sheet,
)
from nardy.vision.geometry import BoardGeometry
from nardy.vision.layout import BoardLayout
from nardy.vision.scene import Scene
from tests.calibration.scenes import corner_error, stick_markers

# a board with a frame wide enough for 5 cm stickers
GEOMETRY = BoardGeometry(frame_width=0.07, tray_gap=0.07)


@pytest.mark.parametrize(("tilt", "seed"), [(0.0, 1), (30.0, 2), (45.0, 3)])
def test_markers_on_the_frame_give_the_corners(tilt: float, seed: int) -> None:
    scene = Scene.random(
        np.random.default_rng(seed), size=(1280, 720), tilt=(tilt, tilt), geometry=GEOMETRY, harsh=0.0
    )
    sample = scene.render(BoardLayout.short_start(), rng=np.random.default_rng(seed))
    image = stick_markers(sample.image, scene, side=0.06)
    found = detect_markers(image)
    assert set(found) >= {0, 1, 2, 3}
    corners = corners_from_markers(found, geometry=GEOMETRY)
    assert corner_error(corners, sample.corners) < 2.0
    # once learned, any two markers fix the board
    learned = learn_markers(found, sample.corners, GEOMETRY)
    two = {k: found[k] for k in (0, 2)}
    assert corner_error(corners_from_markers(two, learned, GEOMETRY), sample.corners) < 2.0


def test_missing_markers_are_named() -> None:
    with pytest.raises(MarkerError, match=r"markers \[1, 3\] not seen"):
        corners_from_markers({0: np.zeros((4, 2)), 2: np.ones((4, 2))})


def test_the_printed_sheet_reads_back_and_writes_pdf_and_png(tmp_path: Path) -> None:
    page = marker_sheet(SheetConfig(dpi=100))
    assert set(detect_markers(page)) == {0, 1, 2, 3}
    pdf = write_sheet(tmp_path / "m.pdf", SheetConfig(dpi=72))
    assert pdf.read_bytes().startswith(b"%PDF-1.4") and pdf.read_bytes().rstrip().endswith(b"%%EOF")
    png = write_sheet(tmp_path / "m.png", SheetConfig(dpi=72))
    assert cv2.imread(str(png)) is not None
    with pytest.raises(ValueError, match=".png or .pdf"):
        write_sheet(tmp_path / "m.gif")
