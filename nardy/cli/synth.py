"""``nardy synth``: write a labelled set of synthetic board photos."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nardy.cli._args import parse_size


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "synth",
        help="render a labelled set of synthetic board photos",
        description=(
            "Render N synthetic photos of nardy boards -- random board styles, checker colours, camera "
            "angles up to 50 degrees, light, glare, blur, noise, dice and cube -- with exact labels. "
            "Writes DIR/NNNNN.jpg (or .png) and DIR/labels.jsonl, one JSON object per image: file, "
            "corners (TL, TR, BR, BL of the playing area, pixels), layout (the nardy recognize --json "
            "form), settled, meta (style family, checker set, tilt...)."
        ),
    )
    p.add_argument("--n", type=int, default=500, help="number of images (default 500)")
    p.add_argument("--seed", type=int, default=1, help="seed; the same seed writes the same set (default 1)")
    p.add_argument("--out", type=Path, required=True, help="output directory (created if missing)")
    p.add_argument("--size", default="1280x720", help="image size WIDTHxHEIGHT (default 1280x720)")
    p.add_argument("--max-tilt", type=float, default=50.0, help="largest camera tilt in degrees (default 50)")
    p.add_argument("--png", action="store_true", help="write lossless PNG instead of JPEG (quality 95)")
    p.add_argument(
        "--ornamented",
        action="store_true",
        help="the same scenes with a medallion carved in the middle of each half of the field",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import cv2

    from nardy.vision.scene import synthetic_set

    try:
        w, h = parse_size(args.size)
    except ValueError as exc:
        print(f"nardy synth: {exc}", file=sys.stderr)
        return 2
    if args.n < 0:
        print("nardy synth: --n must not be negative", file=sys.stderr)
        return 2
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    ext = ".png" if args.png else ".jpg"
    params = [] if args.png else [cv2.IMWRITE_JPEG_QUALITY, 95]
    with open(out / "labels.jsonl", "w", encoding="utf-8") as labels:
        for sample in synthetic_set(
            args.n, args.seed, size=(w, h), tilt=(0.0, args.max_tilt), ornamented=args.ornamented
        ):
            name = f"{sample.meta['index']:05d}{ext}"
            cv2.imwrite(str(out / name), sample.image, params)
            record = {
                "file": name,
                "corners": sample.corners.round(2).tolist(),
                "layout": sample.layout.json(),
                "settled": sample.settled,
                "meta": sample.meta,
            }
            labels.write(json.dumps(record) + "\n")
    print(f"wrote {args.n} images and labels.jsonl to {out}", file=sys.stderr)
    return 0
