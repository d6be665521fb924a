from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from nardy.calibration.orientation import Orientation
from nardy.calibration.profile import Profile
from nardy.cli import main
from nardy.rules import Position
from nardy.vision.scene import Scene


def test_calibrate_markers_writes_a_sheet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["calibrate", "markers", "--out", str(tmp_path / "m.pdf"), "--dpi", "72"]) == 0
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF")
    assert main(["calibrate", "markers", "--out", str(tmp_path / "m.txt")]) == 2
    assert ".png or .pdf" in capsys.readouterr().err


def test_calibrate_board_and_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    scene = Scene.random(
        np.random.default_rng(12), size=(960, 540), family="oak", tilt=(20.0, 20.0), harsh=0.5
    )
    sample = scene.render(
        Orientation("top-right").from_position(Position.initial("long")), rng=np.random.default_rng(1)
    )
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), sample.image)
    out = tmp_path / "board.json"
    corners = [f"{x:.2f},{y:.2f}" for x, y in sample.corners]
    code = main(
        [
            "calibrate",
            "board",
            "--camera",
            str(image),
            "--corners",
            *corners,
            "--variant",
            "long",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    profile = Profile.load(out)
    assert profile.corners_source == "manual" and profile.variant == "long"
    assert profile.orientation == Orientation("top-right") and profile.orientation_source == "start"
    assert profile.colours is not None
    assert (tmp_path / "board-debug.png").exists()
    capsys.readouterr()
    assert main(["calibrate", "check", "--profile", str(out), str(image), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["fits"] and report["pattern"] > 0.7
    # the same camera at half the resolution fits; the frame cut to another shape does not
    half = tmp_path / "half.png"
    cv2.imwrite(str(half), cv2.resize(sample.image, (480, 270), interpolation=cv2.INTER_AREA))
    assert main(["calibrate", "check", "--profile", str(out), str(half), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fits"]
    cut = tmp_path / "cut.png"
    cv2.imwrite(str(cut), sample.image[:, :720])
    main(["calibrate", "check", "--profile", str(out), str(cut), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert not report["fits"]
    assert "the frame is 720x540, another shape than the profile's 960x540" in report["reasons"]


def test_calibrate_board_finds_the_board_by_itself(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scene = Scene.random(
        np.random.default_rng(24), size=(960, 540), family="felt", tilt=(0.0, 0.0), harsh=0.5
    )
    sample = scene.render(
        Orientation().from_position(Position.initial("short")), rng=np.random.default_rng(11)
    )
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), sample.image)
    assert main(["calibrate", "board", "--camera", str(image), "--out", str(tmp_path / "p.json")]) == 0
    assert "found: corners" in capsys.readouterr().out
    assert Profile.load(tmp_path / "p.json").corners_source == "auto"


def _short_start(tmp_path: Path) -> tuple[Path, np.ndarray]:
    """A 960x540 frame of an oak board's short-nardy start at 20 degrees, saved: (file, corners)."""
    scene = Scene.random(np.random.default_rng(12), size=(960, 540), family="oak", tilt=(20.0, 20.0))
    sample = scene.render(
        Orientation().from_position(Position.initial("short")), rng=np.random.default_rng(1)
    )
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), sample.image)
    return image, sample.corners


def test_calibrate_board_takes_a_camera_size_and_names_a_bad_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--size`` is what a camera (an index) is asked for; a file keeps its own size."""
    image, truth = _short_start(tmp_path)
    corners = [f"{x:.2f},{y:.2f}" for x, y in truth]
    out = tmp_path / "board.json"
    args = ["calibrate", "board", "--camera", str(image), "--corners", *corners, "--out", str(out)]
    assert main([*args, "--size", "1280 by 720"]) == 2
    assert "--size must be WIDTHxHEIGHT, like 1280x720, not '1280 by 720'" in capsys.readouterr().err
    assert not out.exists()
    assert main([*args, "--size", "640x480"]) == 0
    assert Profile.load(out).image_size == (960, 540)


def test_calibrate_board_names_corners_given_out_of_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    image, truth = _short_start(tmp_path)
    tl, tr, br, bl = truth
    crossed = [f"{x:.2f},{y:.2f}" for x, y in (tl, tr, bl, br)]
    out = tmp_path / "board.json"
    assert main(["calibrate", "board", "--camera", str(image), "--corners", *crossed, "--out", str(out)]) == 2
    assert "do not go round the playing area" in capsys.readouterr().err
    assert not out.exists()


def test_calibrate_board_refuses_corners_mostly_outside_the_frame(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # corners typed for another camera's frame: the board would lie mostly off this one
    image, truth = _short_start(tmp_path)
    far = [f"{x:.2f},{y:.2f}" for x, y in truth * 20.0]
    out = tmp_path / "board.json"
    assert main(["calibrate", "board", "--camera", str(image), "--corners", *far, "--out", str(out)]) == 2
    assert "of the board inside the 960x540 frame" in capsys.readouterr().err
    assert not out.exists()
    # a corner cut off by the frame's edge is a real setup and is taken
    cut = truth.copy()
    cut[int(np.argmax(cut[:, 0])), 0] = 1000.0  # the rightmost corner 40 px past the frame's edge
    given = [f"{x:.2f},{y:.2f}" for x, y in cut]
    assert main(["calibrate", "board", "--camera", str(image), "--corners", *given, "--out", str(out)]) == 0
    assert out.exists()

