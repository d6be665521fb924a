"""Benchmark of the drift watch (``nardy.calibration.drift.DriftMonitor``) on rendered sessions.

Each session is a new random scene (1280x720, the four board families in turn, 0-45 degrees, a
short or a long start) watched frame by frame, every frame rendered afresh (noise of its own):

* *right corners*: the monitor is started on the board's true corners and fed ``--frames`` frames
  of the same view -- any move it proposes is a false one;
* *right corners, always looked at*: the same with every learned level checked by a search
  (``verify_below`` 1.0), the check a weak level gets;
* *hands in play*: started on the true corners, then one or two hands over the board in every
  frame, reaching from either side -- any move proposed is a false one;
* *nudged in play*: started on the true corners, then the camera turns 3-10 degrees and shifts up
  to 0.4 of the board's width -- the move must be noticed and the board found;
* *stale at the start*: the same turn and shift before the session starts, the monitor started on
  the corners from before it (a profile made before the stand was knocked).

Per kind: sessions in which a move was proposed, the proposed corners' error against the truth
(largest corner, pixels), the frame of the proposal (counted from the session's first, 0), full
searches made, and the monitor's processor seconds a session (rendering left out). A stale start
is watched long enough for every look a weak level gets.

    python -m benchmarks.drift [--n 24] [--seed 100] [--frames 12]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from benchmarks._table import table, write
from nardy.calibration.drift import DriftConfig, DriftMonitor
from nardy.vision.geometry import BoardGeometry
from nardy.vision.layout import BoardLayout
from nardy.vision.render import Hand
from nardy.vision.scene import Scene

FAMILIES = ("felt", "walnut", "oak", "painted")
KINDS = (
    "right corners",
    "right corners, always looked at",
    "hands in play",
    "nudged in play",
    "stale at the start",
)


class _Counted(DriftMonitor):
    """A monitor that counts its full searches."""

    def __init__(self, config: DriftConfig, corners: NDArray[np.float64], geometry: BoardGeometry) -> None:
        super().__init__(config, corners, geometry)
        self.searches = 0

    def _refind(
        self, frame: NDArray[np.uint8], sure: bool = True
    ) -> tuple[NDArray[np.float64] | None, float]:
        self.searches += 1
        return super()._refind(frame, sure)


def _hands(rng: np.random.Generator, scene: Scene) -> tuple[Hand, ...]:
    g = scene.geometry
    out = []
    for _ in range(int(rng.integers(1, 3))):
        row: Literal["top", "bottom"] = "top" if rng.random() < 0.5 else "bottom"
        x, y = g.slot(row, int(rng.integers(12)), float(rng.uniform(0, 4)))
        near = rng.random() < 0.7
        out.append(Hand(x, y, from_deg=float(rng.uniform(-40, 40) + (0.0 if near else 180.0))))
    return tuple(out)


def corner_error(found: NDArray[np.float64], truth: NDArray[np.float64]) -> float:
    return float(np.max(np.linalg.norm(found - truth, axis=1)))


def session(kind: str, index: int, seed: int, frames: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed + index)
    scene = Scene.random(rng, size=(1280, 720), family=FAMILIES[index % 4], tilt=(0.0, 45.0))
    layout = BoardLayout.long_start() if index % 2 == 0 else BoardLayout.short_start()
    spec = scene.camera_spec
    turn = rng.uniform(3.0, 10.0) * rng.choice([-1.0, 1.0])
    shift = rng.uniform(-0.4, 0.4)
    moved = scene.with_camera(
        replace(spec, azimuth=spec.azimuth + turn, offset=(spec.offset[0] + shift, spec.offset[1]))
    )
    start = scene.render(layout).corners
    config = DriftConfig(verify_below=1.0) if kind == "right corners, always looked at" else DriftConfig()
    monitor = _Counted(config, start, scene.geometry)
    if kind == "nudged in play":
        views = [scene] * config.learn_frames + [moved] * frames
    elif kind == "stale at the start":
        views = [moved] * max(frames, config.learn_frames + config.retry_every * config.verify_looks)
    else:
        views = [scene] * frames
    hands: list[tuple[Hand, ...]] = [()] * len(views)
    if kind == "hands in play":
        views = [scene] * (config.learn_frames + frames)
        hands = [()] * config.learn_frames + [_hands(rng, scene) for _ in range(frames)]
    truth = (moved if kind in ("nudged in play", "stale at the start") else scene).render(layout).corners
    cpu, event, at, states = 0.0, None, None, []
    for n, (view, over) in enumerate(zip(views, hands, strict=True)):
        image = view.render(layout, hands=over).image
        t0 = time.process_time()
        status = monitor.check(image)
        cpu += time.process_time() - t0
        states.append(status.state)
        if status.event is not None:
            event, at = status.event, n
            break
    return {
        "kind": kind,
        "index": index,
        "family": FAMILIES[index % 4],
        "tilt": round(float(spec.tilt), 1),
        "moved": event is not None,
        "error_px": None if event is None else round(corner_error(event.new, truth), 2),
        "frame": at,
        "last_state": states[-1],
        "searches": monitor.searches,
        "level": monitor.level,
        "cpu_s": round(cpu, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=24, help="sessions of each kind (default 24)")
    parser.add_argument("--seed", type=int, default=100, help="seed of the first session (default 100)")
    parser.add_argument("--frames", type=int, default=12, help="frames a session after learning (default 12)")
    args = parser.parse_args()
    records = [session(kind, i, args.seed, args.frames) for kind in KINDS for i in range(args.n)]
    headers = ["sessions", "n", "move proposed", "median px", "max px", "median frame", "searches", "cpu s"]
    rows = []
    for kind in KINDS:
        rs = [r for r in records if r["kind"] == kind]
        errs = [r["error_px"] for r in rs if r["error_px"] is not None]
        at = [r["frame"] for r in rs if r["frame"] is not None]
        rows.append(
            [
                kind,
                len(rs),
                sum(r["moved"] for r in rs),
                float(np.median(errs)) if errs else "-",
                float(max(errs)) if errs else "-",
                float(np.median(at)) if at else "-",
                sum(r["searches"] for r in rs),
                float(np.mean([r["cpu_s"] for r in rs])),
            ]
        )
    print(f"drift watch: {args.n} rendered 1280x720 sessions of each kind, seed {args.seed}")
    print(table(headers, rows))
    path = write(
        "drift", {"args": vars(args), "table": {"headers": headers, "rows": rows}, "records": records}
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
