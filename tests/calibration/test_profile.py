from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nardy.calibration.orientation import Orientation
from nardy.calibration.profile import (
    PROFILE_VERSION,
    ColourModel,
    ColourModels,
    LensCalibration,
    MarkerSet,
    Profile,
    ProfileError,
)
from nardy.rules import Position
from nardy.vision.geometry import BoardGeometry
from nardy.vision.rectify import Intrinsics

CORNERS = ((100.0, 80.0), (1180.0, 90.0), (1150.0, 650.0), (120.0, 640.0))


def _full_profile() -> Profile:
    rng = np.random.default_rng(3)
    light = ColourModel.fit(rng.normal([200, 128, 135], 4, (500, 3)))
    dark = ColourModel.fit(rng.normal([40, 130, 120], 3, (500, 3)))
    field = ColourModel.fit(rng.normal([90, 110, 150], 6, (500, 3)))
    return Profile(
        corners=CORNERS,
        image_size=(1280, 720),
        geometry=BoardGeometry(bar_width=0.07, tray_side="left"),
        variant="long",
        orientation=Orientation("top-left", "dark"),
        orientation_source="start",
        corners_source="auto",
        corners_confidence=0.93,
        colours=ColourModels(light, dark, {"field": field}),
        intrinsics=LensCalibration(
            Intrinsics(
                np.array([[900.0, 0.0, 640.0], [0.0, 900.0, 360.0], [0.0, 0.0, 1.0]]),
                np.array([-0.1, 0.02, 0.0, 0.0, 0.0]),
            ),
            (1280, 720),
            0.31,
        ),
        markers=MarkerSet("DICT_4X4_50", (0, 1, 2, 3)),
        created="2026-01-01T00:00:00+0000",
    )


def test_a_full_profile_round_trips_through_a_file(tmp_path: Path) -> None:
    profile = _full_profile()
    path = profile.save(tmp_path / "board.json")
    again = Profile.load(path)
    assert again.to_json() == profile.to_json()
    assert again.orientation == Orientation("top-left", "dark")
    assert again.start_position == Position.initial("long")
    assert again.geometry == profile.geometry
    assert again.colours is not None and again.intrinsics is not None
    np.testing.assert_allclose(again.colours.light.mean, profile.colours.light.mean, atol=1e-3)  # type: ignore[union-attr]
    assert json.loads(path.read_text())["version"] == PROFILE_VERSION


def test_a_minimal_profile_gets_defaults_and_a_creation_time(tmp_path: Path) -> None:
    path = Profile(CORNERS, (1280, 720)).save(tmp_path / "p.json")
    p = Profile.load(path)
    assert p.variant == "short" and p.start == Position.initial("short").points
    assert p.orientation is None and p.colours is None and p.intrinsics is None
    assert p.created  # stamped on save


def test_version_1_files_are_migrated(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(
        json.dumps(
            {
                "version": 1,
                "image_size": [640, 360],
                "variant": "narde",
                "corners": [[10, 10], [600, 12], [590, 340], [12, 335]],
            }
        )
    )
    p = Profile.load(path)
    assert p.variant == "long" and p.corners_source == "manual" and p.image_size == (640, 360)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"corners": [[0, 0], [1, 0], [1, 1]]}, "profile field 'corners' must be 4 points"),
        ({"corners": [[0, 0], [1, 0], [1, "x"], [0, 1]]}, "profile field 'corners' must be a number"),
        ({"corners": [[0, 0], [0, 100], [100, 100], [100, 0]]}, "profile field 'corners' must go round"),
        ({"version": 9}, "profile field 'version' is 9: written by a newer nardy"),
        ({"version": "2"}, "profile field 'version' must be a whole number"),
        ({"image_size": [1280]}, "profile field 'image_size' must be"),
        ({"geometry": {"bar_width": 0.7}}, "profile field 'geometry': bar width 0.7"),
        ({"geometry": {"bar": 0.1}}, "profile field 'geometry' has unknown key"),
        ({"variant": "chess"}, "profile field 'variant'"),
        ({"start": [0] * 23}, "profile field 'start' must be 24"),
        (
            {"orientation": {"home": "middle", "white": "light"}},
            "profile field 'orientation': unknown corner",
        ),
        (
            {"colours": {"light": {"mean": [1, 2], "cov": [[1, 0, 0]] * 3}, "dark": {}}},
            "'colours.light.mean' must be 3 numbers",
        ),
        (
            {
                "colours": {
                    "light": {"mean": [1, 2, 3], "cov": [[1, 0, 0], [0, 1, 0], [0, 0, -1]]},
                    "dark": {"mean": [1, 2, 3], "cov": [[1, 0, 0]] * 3},
                }
            },
            "'colours.light.cov' must be symmetric",
        ),
        (
            {"intrinsics": {"matrix": [[1, 0, 0]], "distortion": [], "size": [1, 1]}},
            "'intrinsics.matrix' must be",
        ),
        ({"corners_source": "guess"}, "profile field 'corners_source' must be one of"),
        ({"colour": None}, "unknown field(s): colour"),
    ],
)
def test_a_broken_profile_names_the_field(tmp_path: Path, change: dict[str, object], message: str) -> None:
    record = _full_profile().to_json()
    record.update(change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    with pytest.raises(ProfileError) as info:
        Profile.load(path)
    assert message in str(info.value)
    assert str(path) in str(info.value)


def test_missing_fields_and_non_json_are_named(tmp_path: Path) -> None:
    record = _full_profile().to_json()
    del record["corners"]
    with pytest.raises(ProfileError, match="'corners' is missing"):
        Profile.from_json(record)
    with pytest.raises(ProfileError, match="'version' is missing"):
        Profile.from_json({"corners": []})
    path = tmp_path / "x.json"
    path.write_text("{not json")
    with pytest.raises(ProfileError, match="not valid JSON"):
        Profile.load(path)
    with pytest.raises(ProfileError, match="cannot read profile"):
        Profile.load(tmp_path / "missing.json")


def test_intrinsics_scale_with_the_resolution() -> None:
    intr = _full_profile().intrinsics
    assert intr is not None
    half = intr.scaled((640, 360))
    assert half.k[0, 0] == pytest.approx(450.0) and half.k[1, 2] == pytest.approx(180.0)
    with pytest.raises(ProfileError, match="another aspect ratio"):
        intr.scaled((640, 480))


def test_the_profile_gives_the_recognizer_its_own_intrinsics_type(tmp_path: Path) -> None:
    path = _full_profile().save(tmp_path / "board.json")
    lens = Profile.load(path).intrinsics
    assert lens is not None
    for_frames = lens.for_size((640, 360))
    assert type(for_frames) is Intrinsics  # nardy.vision's, as Recognizer(intrinsics=...) takes
    np.testing.assert_allclose(for_frames.k, [[450.0, 0.0, 320.0], [0.0, 450.0, 180.0], [0.0, 0.0, 1.0]])
    np.testing.assert_allclose(for_frames.dist, [-0.1, 0.02, 0.0, 0.0, 0.0])
    assert not lens.k.flags.writeable  # a profile's lens cannot be changed in place


def test_colour_models_measure_distance() -> None:
    rng = np.random.default_rng(1)
    m = ColourModel.fit(rng.normal([100, 120, 140], [5, 2, 2], (2000, 3)))
    near, far = m.distance(np.array([[100, 120, 140], [100, 140, 140]]))
    assert near < 1 and far > 5


def test_the_profiles_recognizer_uses_its_corners_geometry_lens_and_colours() -> None:
    profile = _full_profile()
    assert profile.intrinsics is not None and profile.colours is not None
    rec = profile.recognizer()
    np.testing.assert_allclose(rec.corners, profile.corner_array)
    assert rec.config.geometry == profile.geometry
    assert rec.intrinsics is not None
    np.testing.assert_allclose(rec.intrinsics.k, profile.intrinsics.k)
    assert rec.colours is not None
    np.testing.assert_allclose(rec.colours[0], profile.colours.light.mean_array)
    np.testing.assert_allclose(rec.colours[1], profile.colours.dark.mean_array)
    # frames of half the size: corners and lens scaled with them
    half = profile.recognizer(frame_size=(640, 360))
    np.testing.assert_allclose(half.corners, profile.corner_array / 2)
    assert half.intrinsics is not None
    np.testing.assert_allclose(half.intrinsics.k[:2], profile.intrinsics.k[:2] / 2)


def test_the_profiles_recognizer_refuses_a_lens_of_another_aspect_ratio() -> None:
    with pytest.raises(ProfileError, match="another aspect ratio"):
        _full_profile().recognizer(frame_size=(1000, 1000))
