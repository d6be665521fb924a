"""Benchmark of the checker reader on decorated boards: the same scenes with and without a medallion.

Many long-nardy boards have a medallion carved, burnt or inlaid in the middle of each half, which
shows between the points and in the band between their tips. Every other synthetic set draws a
plain field. Here each scene of ``scene.synthetic_sample`` (families and checker sets cycling, 0-50
degrees, dice and the cube) is drawn twice, once plain and once with a random ``style.Ornament``
(faint to strong, darker or now and then lighter than the field, one to three rings, with or
without petals and a filled centre), the same camera, light, noise and position; both are read
from the true corners. Reported per group: points right and boards exact (``layout()``, as in the
accuracy benchmark), boards called unsettled, and the points read as holding checkers where the
truth has none ("phantoms") -- each plain / decorated.

    python -m benchmarks.vision_ornaments [--n 120] [--seed 40]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from benchmarks._table import table, write
from nardy.vision.config import RecognizerConfig
from nardy.vision.detect import Detector
from nardy.vision.layout import layout_errors
from nardy.vision.recognizer import Recognizer
from nardy.vision.scene import synthetic_sample

SIZE = (1280, 720)
TILT_BANDS = ((0.0, 25.0), (25.0, 50.01))


def _read(
    detector: Detector, config: RecognizerConfig, seed: int, index: int, ornamented: bool
) -> dict[str, Any]:
    sample = synthetic_sample(seed, index, size=SIZE, ornamented=ornamented)
    obs = Recognizer(config, sample.corners, detector=detector).read(sample.image)
    layout = obs.layout()
    errors = layout_errors(sample.layout, layout)
    phantoms = [
        f"{row}[{i}]"
        for row in ("top", "bottom")
        for i, (truth, seen) in enumerate(zip(getattr(sample.layout, row), getattr(layout, row), strict=True))
        if truth.count == 0 and seen.count > 0
    ]
    return {
        "errors": errors,
        "points_right": 24 - len([e for e in errors if e not in ("bar", "off")]),
        "settled": obs.settled,
        "named": list(obs.unsettled),
        "phantoms": phantoms,
        "meta": sample.meta,
    }


def run(n: int, seed: int) -> dict[str, Any]:
    config = RecognizerConfig()
    detector = Detector.load()
    records = []
    for index in range(n):
        plain = _read(detector, config, seed, index, False)
        decorated = _read(detector, config, seed, index, True)
        orn = decorated["meta"]["ornament"]
        records.append(
            {
                "index": index,
                "family": plain["meta"]["family"],
                "checker_set": plain["meta"]["checker_set"],
                "tilt": plain["meta"]["tilt"],
                "ornament": orn,
                **{
                    f"{k}_{name}": r[k]
                    for name, r in (("plain", plain), ("decorated", decorated))
                    for k in ("errors", "points_right", "settled", "named", "phantoms")
                },
            }
        )
    return {"records": records}


def summarise(records: list[dict[str, Any]]) -> list[list[Any]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups["all"].append(r)
        groups[f"family {r['family']}"].append(r)
        orn = r["ornament"]
        groups["carving lighter than the field" if orn["contrast"] < 0 else "carving darker"].append(r)
        if orn["filled"]:
            groups["filled centre"].append(r)
        for lo, hi in TILT_BANDS:
            if lo <= r["tilt"] < hi:
                groups[f"tilt {lo:.0f}-{min(hi, 50):.0f} deg"].append(r)

    def pair(rs: list[dict[str, Any]], cell: Callable[[list[dict[str, Any]], str], str]) -> str:
        return " / ".join(cell(rs, kind) for kind in ("plain", "decorated"))

    rows = []
    for name, rs in groups.items():
        rows.append(
            [
                name,
                len(rs),
                pair(rs, lambda g, k: f"{100 * sum(r[f'points_right_{k}'] for r in g) / (24 * len(g)):.2f}%"),
                pair(rs, lambda g, k: f"{100 * sum(not r[f'errors_{k}'] for r in g) / len(g):.1f}%"),
                pair(rs, lambda g, k: f"{100 * sum(not r[f'settled_{k}'] for r in g) / len(g):.1f}%"),
                pair(rs, lambda g, k: str(sum(len(r[f"phantoms_{k}"]) for r in g))),
            ]
        )
    return rows


HEADERS = ["group", "images", "points right", "boards exact", "called unsettled", "phantoms"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=120, help="scenes (each read plain and decorated)")
    parser.add_argument("--seed", type=int, default=40)
    args = parser.parse_args()
    result = run(args.n, args.seed)
    rows = summarise(result["records"])
    print(f"vision on decorated boards: {args.n} scenes, seed {args.seed}; each cell plain / decorated")
    print(table(HEADERS, rows))
    path = write(
        "vision_ornaments",
        {
            "n": args.n,
            "seed": args.seed,
            "table": {"headers": HEADERS, "rows": rows},
            "records": result["records"],
        },
    )
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
