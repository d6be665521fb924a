"""``nardy recognize`` and ``nardy synth`` through the real command line entry point."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest

from nardy.cli import main


@pytest.fixture(scope="module")
def synth_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth")
    assert main(["synth", "--n", "2", "--seed", "3", "--size", "640x360", "--out", str(out)]) == 0
    return out


def _labels(folder: Path) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines()]


def test_synth_writes_images_and_labels(synth_dir: Path) -> None:
    labels = _labels(synth_dir)
    assert [r["file"] for r in labels] == ["00000.jpg", "00001.jpg"]
    for r in labels:
        assert (synth_dir / r["file"]).stat().st_size > 1000
        assert len(r["corners"]) == 4
        assert len(r["layout"]["top"]) == 12 and len(r["layout"]["bottom"]) == 12


def test_synth_ornamented_draws_the_same_scenes_with_a_medallion(tmp_path: Path) -> None:
    import cv2
    import numpy as np

    args = ["synth", "--n", "2", "--seed", "3", "--size", "640x360", "--png"]
    assert main([*args, "--out", str(tmp_path / "plain")]) == 0
    assert main([*args, "--ornamented", "--out", str(tmp_path / "decorated")]) == 0
    plain, decorated = _labels(tmp_path / "plain"), _labels(tmp_path / "decorated")
    for a, b in zip(plain, decorated, strict=True):
        assert a["layout"] == b["layout"] and a["corners"] == b["corners"]
        assert "ornament" not in a["meta"]
        assert 0.0 < b["meta"]["ornament"]["radius"] <= 0.5 and b["meta"]["ornament"]["rings"] >= 1
        # the same scene but for the medallion: the pictures differ, and only round the board's middle
        diff = np.abs(
            cv2.imread(str(tmp_path / "decorated" / b["file"])).astype(float)
            - cv2.imread(str(tmp_path / "plain" / a["file"])).astype(float)
        ).sum(axis=2)
        ys, xs = np.nonzero(diff > 30)
        assert len(ys) > 50
        corners = np.array(b["corners"])
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        assert np.all((xs >= lo[0] - 2) & (xs <= hi[0] + 2) & (ys >= lo[1] - 2) & (ys <= hi[1] + 2))


def test_recognize_json_lines_and_a_bad_file_does_not_stop_the_rest(
    synth_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = _labels(synth_dir)[0]
    corners = " ".join(f"{x},{y}" for x, y in label["corners"])
    bad = tmp_path / "notes.png"
    bad.write_text("this is not an image")
    image = str(synth_dir / label["file"])
    debug = tmp_path / "seen.png"
    code = main(["recognize", image, str(bad), image, "--corners", corners, "--json", "--debug", str(debug)])
    captured = capsys.readouterr()
    assert code == 1  # one input failed
    assert "notes.png" in captured.err and "not an image" in captured.err
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert len(lines) == 2
    for record in lines:
        assert set(record) >= {"top", "bottom", "bar", "off", "settled", "confidence", "timings_ms"}
        assert all(set(p) == {"light", "dark"} for p in record["top"] + record["bottom"])
        assert 0.0 <= record["confidence"] <= 1.0
    assert (tmp_path / "seen-0001.png").exists() and (tmp_path / "seen-0002.png").exists()


def test_recognize_reads_the_photos_in_a_folder_and_names_a_folder_without_any(
    synth_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``nardy recognize photos/`` reads the photos in the folder, by name (``labels.jsonl`` beside
    them is not an input). A folder with none once ended the command with a traceback before any
    file was read; it is one bad input, named, and the rest are read."""
    labels = _labels(synth_dir)
    corners = " ".join(f"{x},{y}" for x, y in labels[0]["corners"])
    empty = tmp_path / "empty"
    empty.mkdir()
    code = main(["recognize", str(empty), str(synth_dir), "--corners", corners, "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert f"{empty}: a folder with no photo or video in it" in captured.err
    assert "Traceback" not in captured.err and "labels.jsonl" not in captured.err
    read = [json.loads(line)["file"] for line in captured.out.splitlines()]
    assert read == [str(synth_dir / r["file"]) for r in labels]


def test_recognize_without_corners_finds_the_board_in_each_photo(
    synth_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Photos read together without corners may show other boards from other places: each one's
    board is found in it. (The first photo's corners once served every photo given with it.)"""
    import cv2

    label = _labels(synth_dir)[0]
    image = cv2.imread(str(synth_dir / label["file"]))
    mirrored = tmp_path / "mirrored.png"
    cv2.imwrite(str(mirrored), cv2.flip(image, 1))
    width = image.shape[1]
    boards = {
        str(synth_dir / label["file"]): [(x, y) for x, y in label["corners"]],
        str(mirrored): [(width - 1 - x, y) for x, y in label["corners"]],
    }
    code = main(["recognize", *boards, "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert [json.loads(line)["file"] for line in captured.out.splitlines()] == list(boards)
    for name, truth in boards.items():
        found = f"nardy recognize: {name}: found"
        said = [line for line in captured.err.splitlines() if line.startswith(found)]
        assert len(said) == 1, captured.err
        xy = [tuple(map(float, p.split(","))) for p in re.findall(r"\((-?\d+,-?\d+)\)", said[0])]
        # the corners as a set (which end is the top is the finder's to name)
        assert max(min(math.dist(t, f) for f in xy) for t in truth) < 8.0


def test_recognize_without_corners_says_what_is_needed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No corners, no profile and no board the finder can be sure of: it says what to give it."""
    import cv2
    import numpy as np

    table = np.random.default_rng(0).integers(90, 140, size=(360, 640, 3), dtype=np.uint8)
    image = tmp_path / "no-board.png"
    cv2.imwrite(str(image), cv2.GaussianBlur(table, (9, 9), 0))
    code = main(["recognize", str(image)])
    assert code == 2
    assert "--corners" in capsys.readouterr().err


def test_recognize_without_corners_finds_the_board(
    synth_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = _labels(synth_dir)[0]
    code = main(["recognize", str(synth_dir / label["file"]), "--json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert len(captured.out.splitlines()) == 1
    # it says where it found the board, and that is where the board is
    found = re.search(r"found: corners TL TR BR BL ((?:\(-?\d+,-?\d+\) ?){4})", captured.err)
    assert found is not None, captured.err
    xy = [tuple(map(float, p.split(","))) for p in re.findall(r"\((-?\d+,-?\d+)\)", found.group(1))]
    error = max(math.dist(a, b) for a, b in zip(xy, label["corners"], strict=True))
    assert error < 8.0


def test_recognize_rejects_malformed_corners(synth_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["recognize", str(synth_dir / "00000.jpg"), "--corners", "1,2 3,4"])
    assert code == 2
    assert "four x,y pairs" in capsys.readouterr().err


def test_recognize_reads_a_profile(
    synth_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = _labels(synth_dir)[1]
    profile = tmp_path / "board.json"
    profile.write_text(json.dumps({"corners": label["corners"], "recognizer": {"count": {"disc_cost": 3.5}}}))
    assert main(["recognize", str(synth_dir / label["file"]), "--profile", str(profile)]) == 0
    out = capsys.readouterr().out
    assert "top:" in out and "bottom:" in out


def test_recognize_reads_a_profile_saved_by_calibration(
    synth_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    from nardy.calibration.profile import ColourModel, ColourModels, LensCalibration, Profile
    from nardy.vision.rectify import Intrinsics

    label = _labels(synth_dir)[1]
    rng = np.random.default_rng(5)
    lens = Intrinsics(np.array([[600.0, 0.0, 320.0], [0.0, 600.0, 180.0], [0.0, 0.0, 1.0]]), np.zeros(5))
    saved = Profile(
        corners=tuple((float(x), float(y)) for x, y in label["corners"]),
        image_size=(640, 360),
        colours=ColourModels(
            ColourModel.fit(rng.normal([215, 128, 132], 4, (200, 3))),
            ColourModel.fit(rng.normal([45, 132, 125], 4, (200, 3))),
        ),
        intrinsics=LensCalibration(lens, (640, 360), 0.3),
    ).save(tmp_path / "board.json")
    # a lens and learned colours in the saved form once stopped the command with a KeyError
    assert main(["recognize", str(synth_dir / label["file"]), "--profile", str(saved), "--json"]) == 0
    record = json.loads(capsys.readouterr().out.splitlines()[0])
    assert len(record["top"]) == 12 and len(record["bottom"]) == 12


def test_recognize_names_a_missing_profile_field(
    synth_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = _labels(synth_dir)[1]
    profile = tmp_path / "board.json"
    profile.write_text(json.dumps({"corners": label["corners"], "intrinsics": {"dist": [0, 0, 0, 0, 0]}}))
    assert main(["recognize", str(synth_dir / label["file"]), "--profile", str(profile)]) == 2
    assert "profile field 'k' is missing" in capsys.readouterr().err


def test_recognize_samples_frames_of_a_video(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import cv2
    import numpy as np

    from nardy.vision.layout import BoardLayout
    from nardy.vision.scene import Scene

    scene = Scene.random(np.random.default_rng(3), size=(640, 360), tilt=(10.0, 10.0))
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), 4, (640, 360))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write mp4")
    for _ in range(8):
        writer.write(scene.render(BoardLayout.short_start()).image)
    writer.release()
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in scene.corners())
    assert main(["recognize", str(path), "--corners", corners, "--json", "--every", "1"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["file"].rsplit("#", 1)[1] for r in records] == ["0", "4"]


def test_each_photo_is_read_on_its_own(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A recognizer remembers the checker colours of the frames it read (a video's frames are one
    board); photos given together may be of different boards, so none carries over to the next."""
    import cv2
    import numpy as np

    from nardy.vision.config import RecognizerConfig
    from nardy.vision.layout import BoardLayout
    from nardy.vision.recognizer import Recognizer
    from nardy.vision.scene import Scene

    scene = Scene.random(np.random.default_rng(43), size=(960, 540), checker_set="blue_red")
    # red checkers alone on five points, the blue all borne off
    points = {("top", 2): 3, ("top", 7): 2, ("bottom", 0): 4, ("bottom", 5): 1, ("bottom", 9): 2}
    end = BoardLayout.from_points({k: ("light", n) for k, n in points.items()}, off=(3, 15))  # type: ignore[arg-type]
    start_png, end_png = tmp_path / "start.png", tmp_path / "end.png"
    cv2.imwrite(str(start_png), scene.render(BoardLayout.short_start()).image)
    cv2.imwrite(str(end_png), scene.render(end).image)
    # read in one recognizer, the start would change what the end photo is read as
    rec = Recognizer(RecognizerConfig(), scene.corners())
    alone = rec.read(cv2.imread(str(end_png))).layout()
    rec = Recognizer(RecognizerConfig(), scene.corners())
    rec.read(cv2.imread(str(start_png)))
    assert rec.memory is not None and rec.read(cv2.imread(str(end_png))).layout() != alone

    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in scene.corners())

    def records(*files: Path) -> list[dict]:  # type: ignore[type-arg]
        assert main(["recognize", *map(str, files), "--corners", corners, "--json"]) == 0
        out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        for r in out:
            r.pop("timings_ms")
        return out

    assert records(start_png, end_png)[1] == records(end_png)[0]


def test_recognize_scales_a_saved_profile_to_a_photo_of_another_resolution(
    synth_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A profile made on 1280x720 frames reads a 640x360 photo of the same camera through its
    corners scaled (they once fell on the wrong pixels); a photo of another shape is refused,
    naming both sizes, and the next file is still read."""
    import cv2

    from nardy.calibration.profile import Profile

    label = _labels(synth_dir)[0]
    image = str(synth_dir / label["file"])
    corners = " ".join(f"{x},{y}" for x, y in label["corners"])
    assert main(["recognize", image, "--corners", corners, "--json"]) == 0
    direct = json.loads(capsys.readouterr().out.splitlines()[0])
    saved = Profile(
        corners=tuple((2.0 * x, 2.0 * y) for x, y in label["corners"]), image_size=(1280, 720)
    ).save(tmp_path / "board.json")
    other = tmp_path / "square.png"
    assert cv2.imwrite(str(other), cv2.resize(cv2.imread(image), (480, 480)))
    code = main(["recognize", str(other), image, "--profile", str(saved), "--json"])
    captured = capsys.readouterr()
    assert code == 1
    assert "square.png: the image is 480x480 and the profile was made on 1280x720" in captured.err
    [record] = [json.loads(line) for line in captured.out.splitlines()]
    assert record["file"] == image
    for key in ("top", "bottom", "bar", "off"):
        assert record[key] == direct[key], key


def test_recognize_names_corners_that_do_not_go_round_the_board(
    synth_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    label = _labels(synth_dir)[0]
    (tl, tr, br, bl) = label["corners"]
    crossed = " ".join(f"{x},{y}" for x, y in (tl, tr, bl, br))  # the bottom two swapped
    image = str(synth_dir / label["file"])
    assert main(["recognize", image, "--corners", crossed, "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "do not go round the playing area" in captured.err and "top-left, top-right" in captured.err
