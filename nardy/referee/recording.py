"""Recordings of games at a table: a video, its dice log, the board profile and the truth.

``make_recording`` renders a scripted game (see :mod:`nardy.referee.simulate`) into a folder that
looks exactly like what ``nardy serve`` could have captured from a camera and a dice tower:

- ``video.avi`` -- the frames, Motion-JPEG, read back with ``cv2.VideoCapture``;
- ``dice.jsonl`` -- the dice log, one event per line with its time (``nardy dice listen --log``);
- ``profile.json`` -- the board profile a calibration would have produced;
- ``truth.json`` -- what should be recorded: every turn, and when the illegal plays stood.

It is deterministic for a seed, so the demo can make it on first run instead of shipping it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from nardy.calibration.orientation import Orientation
from nardy.calibration.profile import Profile
from nardy.referee.simulate import SimConfig, TableScript, script_games
from nardy.vision.scene import CameraSpec, Scene

FORMAT = 2
"""Bumped whenever what a recording holds changes, so caches are made anew."""


@dataclass(frozen=True, slots=True)
class RecordingSpec:
    """What to record."""

    variant: str = "short"
    seed: int = 2026
    size: tuple[int, int] = (960, 540)
    fps: float = 5.0
    illegal_turn: int = 6
    """The turn that is first played illegally (then put right)."""
    player: str = "runner"

    def key(self) -> str:
        w, h = self.size
        parts = (
            self.variant,
            f"s{self.seed}",
            f"{w}x{h}",
            f"f{self.fps:g}",
            f"i{self.illegal_turn}",
            self.player,
        )
        return "-".join(parts) + f"-v{FORMAT}"


@dataclass(frozen=True, slots=True)
class Recording:
    """A recording folder's files."""

    folder: Path

    @property
    def video(self) -> Path:
        return self.folder / "video.avi"

    @property
    def dice_log(self) -> Path:
        return self.folder / "dice.jsonl"

    @property
    def profile(self) -> Path:
        return self.folder / "profile.json"

    @property
    def truth(self) -> Path:
        return self.folder / "truth.json"

    def exists(self) -> bool:
        return all(p.is_file() for p in (self.video, self.dice_log, self.profile, self.truth))

    def load_truth(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(self.truth.read_text())
        return data


def _scene(spec: RecordingSpec) -> Scene:
    rng = np.random.default_rng(spec.seed)
    # a calm table: a camera on a stand at the players' side, a little oblique, soft light
    scene = Scene.random(rng, size=spec.size, tilt=(10.0, 30.0), harsh=0.6)
    return scene.with_camera(CameraSpec(tilt=22.0, azimuth=0.0, roll=0.0, fov=55.0, fill=0.92, k1=-0.03))


def make_recording(
    spec: RecordingSpec,
    folder: str | os.PathLike[str],
    progress: Callable[[int, int], None] | None = None,
) -> Recording:
    """Render ``spec`` into ``folder`` (made if needed); files appear only when complete."""
    import cv2

    out = Recording(Path(folder))
    out.folder.mkdir(parents=True, exist_ok=True)
    scene = _scene(spec)
    orientation = Orientation("bottom-right", "light")
    config = SimConfig(fps=spec.fps, illegal_rate=0.0, illegal_at=(spec.illegal_turn,), player=spec.player)
    script = script_games(spec.variant, scene, orientation, seed=spec.seed, config=config)

    tmp_video = out.folder / "video.part.avi"  # the writer picks its container by the ending
    writer = cv2.VideoWriter(str(tmp_video), cv2.VideoWriter.fourcc(*"MJPG"), spec.fps, spec.size)
    if not writer.isOpened():
        raise OSError(f"cannot write a video in {out.folder}")
    try:
        total = len(script.frames)
        for i, frame in enumerate(script.frames):
            layout = orientation.from_position(frame.position)
            sample = scene.render(layout, dice=frame.dice, hands=frame.hands, loose=frame.loose)
            writer.write(sample.image)
            if progress is not None:
                progress(i + 1, total)
    finally:
        writer.release()

    profile = Profile(
        corners=tuple((float(x), float(y)) for x, y in scene.corners()),
        image_size=spec.size,
        geometry=scene.geometry,
        variant=spec.variant,
        orientation=orientation,
        orientation_source="user",
        corners_source="manual",
    )
    _write(out.dice_log, "".join(json.dumps(entry) + "\n" for entry in script.dice))
    _write(out.truth, json.dumps(truth_json(script, spec), indent=1))
    profile.save(out.folder / "profile.json.part")
    os.replace(out.folder / "profile.json.part", out.profile)
    os.replace(tmp_video, out.video)
    return out


def truth_json(script: TableScript, spec: RecordingSpec) -> dict[str, Any]:
    return {
        "spec": {**asdict(spec), "size": list(spec.size)},
        "variant": script.variant,
        "games": script.games,
        "duration": script.duration,
        "frames": len(script.frames),
        "turns": [
            {
                "game": t.game,
                "mover": t.mover.value,
                "roll": [t.roll.high, t.roll.low],
                "play": t.play,
                "after": t.after.to_json(),
                "illegal_first": t.illegal_first,
            }
            for t in script.turns
        ],
        "illegal": [list(window) for window in script.illegal],
    }


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".part")
    tmp.write_text(text)
    os.replace(tmp, path)


def cached_recording(
    spec: RecordingSpec,
    cache: str | os.PathLike[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Recording:
    """The recording for ``spec`` in the cache folder, made there first if it is missing."""
    root = Path(cache) if cache is not None else default_cache()
    recording = Recording(root / spec.key())
    if not recording.exists():
        make_recording(spec, recording.folder, progress)
    return recording


def default_cache() -> Path:
    """``$NARDY_CACHE``, else ``$XDG_CACHE_HOME/nardy``, else ``~/.cache/nardy``."""
    if os.environ.get("NARDY_CACHE"):
        return Path(os.environ["NARDY_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "nardy"
