"""``nardy recognize``: read the checkers off photos or videos of a board."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm"}
VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg"}


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "recognize",
        help="read the checkers off board photos or videos",
        description=(
            "Read every point, the bar and the trays off photos (or frames of videos) of a nardy board. "
            "The board is located by --corners (or a --profile that holds them): the playing area's "
            "corners inside the frame, bear-off trays excluded, in the order top-left, top-right, "
            "bottom-right, bottom-left of the board. 'top' is the row of 12 points along the top-left -> "
            "top-right edge, listed from the top-left; 'bottom' the row along bottom-left -> bottom-right, "
            "listed from the bottom-left; 'light' is the lighter of the two checker colours."
        ),
        epilog=('example: nardy recognize board.jpg --corners "212,80 1050,96 1071,660 190,650" --json'),
    )
    p.add_argument(
        "inputs",
        nargs="+",
        metavar="IMAGE_OR_VIDEO",
        help="photos or videos to read (a folder: the photos and videos in it, by name)",
    )
    p.add_argument("--corners", help='playing-area corners "x,y x,y x,y x,y" (TL TR BR BL, pixels)')
    p.add_argument(
        "--profile",
        type=Path,
        help="board profile: one saved by 'nardy calibrate' (its corners, geometry, lens and learned "
        "colours are used), or JSON with 'corners' and optionally 'geometry', 'recognizer', "
        "'intrinsics' {k, dist}, 'colours' {light, dark} in Lab",
    )
    p.add_argument("--json", action="store_true", help="one JSON line per image or video frame")
    p.add_argument(
        "--debug",
        type=Path,
        metavar="OUT.png",
        help="draw what was seen; with several images or frames OUT-0001.png, OUT-0002.png...",
    )
    p.add_argument(
        "--every",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="read one video frame every this many seconds (default 1)",
    )
    p.set_defaults(func=run)


class UsageError(ValueError):
    """Bad command-line input (reported without a traceback)."""


def parse_corners(text: str) -> list[list[float]]:
    """``"x,y x,y x,y x,y"`` -> four [x, y]."""
    try:
        pts = [[float(v) for v in item.split(",")] for item in text.replace(";", " ").split()]
    except ValueError:
        raise UsageError(
            f'--corners {text!r}: expected four x,y pairs like "10,20 300,22 310,240 8,235"'
        ) from None
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise UsageError(f"--corners {text!r}: expected exactly four x,y pairs (TL TR BR BL)")
    return pts


def _load_profile(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UsageError(f"cannot read profile {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise UsageError(f"profile {path} is not a JSON object")
    return data


def _inputs(names: list[str]) -> list[str]:
    """``names`` with each folder replaced by the photos and videos in it, in name order (not its
    subfolders): ``nardy recognize photos/``. A folder with none of them, or that cannot be listed,
    stays as it is, to be reported as one bad input."""
    kinds = IMAGE_SUFFIXES | VIDEO_SUFFIXES
    out: list[str] = []
    for name in names:
        path = Path(name)
        found: list[str] = []
        if path.is_dir():
            try:
                found = sorted(str(p) for p in path.iterdir() if p.suffix.lower() in kinds and p.is_file())
            except OSError:
                pass  # reported as the folder it is
        out.extend(found or [name])
    return out


def _frames(path: Path, every: float) -> Iterator[tuple[str, Any]]:
    """(label, frame) for an image, or sampled frames of a video; raises UsageError if unreadable."""
    import cv2
    import numpy as np

    if not path.exists():
        raise UsageError(f"{path}: no such file")
    if path.is_dir():
        raise UsageError(f"{path}: a folder with no photo or video in it")
    if path.suffix.lower() not in VIDEO_SUFFIXES:
        try:
            data = np.fromfile(str(path), dtype=np.uint8)
        except OSError as exc:
            raise UsageError(f"{path}: cannot be read: {exc.strerror or exc}") from exc
        frame = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
        if frame is not None:
            yield str(path), frame
            return
        if path.suffix.lower() in IMAGE_SUFFIXES or path.stat().st_size == 0:
            raise UsageError(f"{path}: not an image that can be read")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise UsageError(f"{path}: not an image or video that can be read")
    fps = cap.get(cv2.CAP_PROP_FPS) or 25.0
    step = max(1, int(round(every * fps)))
    index, read_any = 0, False
    try:
        while True:
            ok, frame = cap.read()
            if not ok:
                break
            read_any = True
            if index % step == 0:
                yield f"{path}#{index}", frame
            index += 1
    finally:
        cap.release()
    if not read_any:
        raise UsageError(f"{path}: not an image or video that can be read")


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace

    import cv2
    import numpy as np

    from nardy.calibration.profile import Profile
    from nardy.vision.config import RecognizerConfig
    from nardy.vision.debug import draw_observation
    from nardy.vision.geometry import BoardGeometry
    from nardy.vision.proportions import with_measured_proportions
    from nardy.vision.recognizer import Recognizer
    from nardy.vision.rectify import Intrinsics

    inputs = _inputs(args.inputs)
    corners: Any = None
    try:
        profile = _load_profile(args.profile) if args.profile else {}
        if "version" in profile:
            # a profile saved by ``nardy calibrate``: its corners, geometry, lens and learned colours
            saved = Profile.from_json(profile)
            corners = parse_corners(args.corners) if args.corners else saved.corner_array.tolist()
            config = replace(RecognizerConfig(), geometry=saved.geometry)

            told = True  # the profile's geometry

            def build(board: Any, frame: Any, base: Any) -> Recognizer:
                size = (frame.shape[1], frame.shape[0])
                if args.corners:  # given for this image; the lens is scaled to it
                    return saved.recognizer(corners=np.asarray(board, float), frame_size=size)
                if not saved.fits(size):
                    raise UsageError(
                        f"the image is {size[0]}x{size[1]} and the profile was made on "
                        f"{saved.image_size[0]}x{saved.image_size[1]} frames (another shape): "
                        "pass --corners for it"
                    )
                return saved.recognizer(frame_size=size)  # another resolution: corners scaled

        else:
            corners = parse_corners(args.corners) if args.corners else profile.get("corners")
            config = RecognizerConfig.from_json(profile.get("recognizer", {}))
            if "geometry" in profile:
                config = replace(config, geometry=BoardGeometry(**profile["geometry"]))
            intrinsics = None
            if "intrinsics" in profile:
                intr = profile["intrinsics"]
                intrinsics = Intrinsics(
                    np.asarray(intr["k"], float).reshape(3, 3), np.asarray(intr["dist"], float)
                )
            colours = None
            if "colours" in profile:
                colours = (
                    np.asarray(profile["colours"]["light"], float),
                    np.asarray(profile["colours"]["dark"], float),
                )

            told = "geometry" in profile

            def build(board: Any, frame: Any, base: Any) -> Recognizer:
                """``base``: the proportions the finder found the board with, if it did."""
                board = np.asarray(board, float)
                used = config
                if not told:
                    # the board's bar (a hinge on a folding board) and height as the frame shows them
                    start = replace(config, geometry=base or config.geometry)
                    geometry = with_measured_proportions(start, frame, board, intrinsics=intrinsics)
                    used = replace(config, geometry=geometry)
                return Recognizer(used, board, intrinsics=intrinsics, colours=colours)

    except KeyError as exc:
        print(f"nardy recognize: profile field {exc} is missing", file=sys.stderr)
        return 2
    except (UsageError, TypeError, ValueError) as exc:
        print(f"nardy recognize: {exc}", file=sys.stderr)
        return 2

    def find(label: str, frame: Any) -> Any:
        """The corners the finder is sure of in ``frame`` and the proportions it found the board
        with (None, said why, when it is not sure)."""
        from nardy.calibration.config import FinderConfig
        from nardy.calibration.finder import find_board

        finding = find_board(FinderConfig(), frame, config.geometry if told else None)
        if not finding.ok or finding.corners is None:
            print(
                f"nardy recognize: {label}: the board was not found with confidence "
                f"({finding.summary()}); the board's corners are needed: pass --corners "
                '"x,y x,y x,y x,y" (top-left, top-right, bottom-right, bottom-left of the playing '
                "area) or --profile FILE",
                file=sys.stderr,
            )
            return None
        print(f"nardy recognize: {label}: {finding.summary()}", file=sys.stderr)
        return finding.corners.tolist(), finding.geometry

    failures = 0
    not_found = 0
    read = 0
    written = 0
    for name in inputs:
        # one file, one board: a recognizer remembers the checker colours of the frames it read,
        # which must not carry over to the next photo (another board, other checkers)
        rec: Recognizer | None = None
        # without corners, the board is found in the file's first frame that can be read, and
        # those corners serve its other frames (within a video the camera stands still); photos
        # given together may be of other boards, from other places
        board, base = corners, None
        try:
            for label, frame in _frames(Path(name), args.every):
                if board is None:
                    found = find(label, frame)
                    if found is None:
                        not_found += 1
                        break
                    board, base = found
                if rec is None:
                    # one board per file: its corners are fixed from here on
                    try:
                        rec = build(board, frame, base)
                    except ValueError as exc:  # the profile does not fit this image
                        raise UsageError(f"{label}: {exc}") from None
                try:
                    obs = rec.read(frame)
                except ValueError as exc:
                    print(f"nardy recognize: {label}: {exc}", file=sys.stderr)
                    failures += 1
                    continue
                read += 1
                if args.json:
                    record = {"file": label, **obs.json()}
                    print(json.dumps(record), flush=True)
                else:
                    state = "settled" if obs.settled else "not settled (" + ", ".join(obs.unsettled) + ")"
                    print(
                        f"{label}: {obs.layout().text()} | {state} | confidence {obs.confidence:.2f} | "
                        f"{obs.timings_ms['total']:.1f} ms",
                        flush=True,
                    )
                if args.debug:
                    written += 1
                    out = (
                        args.debug
                        if len(inputs) == 1 and written == 1
                        else (
                            args.debug.with_name(
                                f"{args.debug.stem}-{written:04d}{args.debug.suffix or '.png'}"
                            )
                        )
                    )
                    drawn = draw_observation(frame, obs, np.asarray(rec.corners, float), rec.diameter_px)
                    cv2.imwrite(str(out), drawn)
        except UsageError as exc:
            print(f"nardy recognize: {exc}", file=sys.stderr)
            failures += 1
    if not_found and not read:
        return 2  # nothing was read for want of the corners: they must be given
    return 1 if failures or not_found else 0
