"""Benchmark of the checker reader's speed: milliseconds per frame, per stage, on one CPU thread.

OpenCV is limited to one thread and the BLAS libraries are asked for one. For each frame size a few
random scenes (mid-game positions, 0..50 degree tilt) are rendered twice, each with its own sensor
noise; the two frames are read in turn, ``--frames`` reads in all, by one ``Recognizer`` after a
warm-up read, as the frames of a stream (the lookup maps are built once per camera position, and
each frame is compared with the one before, as in a live session). Reported: median and 90th
percentile of the total, the median of each stage, and the median processor time of a whole read
(``time.process_time``: steadier than the clock when other work shares the machine).

    python -m benchmarks.vision_speed [--frames 40] [--scenes 4]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402
from typing import Any  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks._table import table, write  # noqa: E402
from nardy.vision.config import RecognizerConfig  # noqa: E402
from nardy.vision.detect import Detector  # noqa: E402
from nardy.vision.recognizer import Recognizer  # noqa: E402
from nardy.vision.scene import Scene, random_layout  # noqa: E402

SIZES = ((1280, 720), (1920, 1080))
STAGES = ("rectify", "evidence", "detect", "count", "colour", "tray", "settle", "assemble")


def run(frames: int, scenes: int, seed: int) -> dict[str, Any]:
    cv2.setNumThreads(1)
    detector = Detector.load()
    out: dict[str, Any] = {}
    for size in SIZES:
        totals: list[float] = []
        cpu: list[float] = []
        stages: dict[str, list[float]] = {s: [] for s in STAGES}
        for k in range(scenes):
            rng = np.random.default_rng([seed, size[0], k])
            scene = Scene.random(rng, size=size)
            layout = random_layout(rng)
            images = [scene.render(layout, rng=rng).image, scene.render(layout, rng=rng).image]
            rec = Recognizer(RecognizerConfig(), scene.corners(), detector=detector)
            rec.read(images[1])  # builds the lookups for this camera position
            for i in range(frames):
                t0 = time.process_time()
                obs = rec.read(images[i % 2], consecutive=True)
                cpu.append((time.process_time() - t0) * 1000.0)
                totals.append(obs.timings_ms["total"])
                for s in STAGES:
                    stages[s].append(obs.timings_ms.get(s, 0.0))
        out[f"{size[0]}x{size[1]}"] = {
            "median_ms": float(np.median(totals)),
            "p90_ms": float(np.percentile(totals, 90)),
            "stages_median_ms": {s: float(np.median(v)) for s, v in stages.items()},
            "cpu_median_ms": float(np.median(cpu)),
            "frames": len(totals),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=40, help="reads per scene (default 40)")
    parser.add_argument("--scenes", type=int, default=4, help="scenes per frame size (default 4)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    result = run(args.frames, args.scenes, args.seed)
    headers = ["frame", "median ms", "p90 ms", *(f"{s} ms" for s in STAGES), "cpu ms"]
    rows = [
        [size, r["median_ms"], r["p90_ms"], *(r["stages_median_ms"][s] for s in STAGES), r["cpu_median_ms"]]
        for size, r in result.items()
    ]
    print(
        f"vision speed: one thread, {args.scenes} scenes x {args.frames} reads per frame size "
        f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores while measuring)"
    )
    print(table(headers, rows))
    path = write(
        "vision_speed",
        {"frames": args.frames, "scenes": args.scenes, "results": result, "load_average": os.getloadavg()[0]},
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
