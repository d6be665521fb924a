"""``nardy calibrate``: set a board up under a camera (board, camera lens, markers, check)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from nardy.cli._args import parse_size

CORNER_HELP = "four corners x,y of the playing area: top-left top-right bottom-right bottom-left"


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "calibrate",
        help="set a board up under a camera: find it, learn its colours, the lens, markers",
        description=(
            "Calibration turns a camera over a board into a reliable reader. 'board' finds the playing area "
            "(automatically, from ArUco markers, or from corners you give), learns the checker colours "
            "and which way round the board lies when the start position is set up, and writes a profile; "
            "'camera' calibrates the lens from chessboard or ChArUco photos; 'markers' prints marker "
            "stickers; 'check' says how well a profile fits a frame."
        ),
    )
    sub = p.add_subparsers(dest="calibrate_command", metavar="STEP")

    b = sub.add_parser(
        "board",
        help="find the board in one frame and write a profile",
        description="Find the board's playing area in one frame and write a profile. Without "
        "--corners or --markers the board is found automatically. If the start position is "
        "set up, the checker colours and the board's orientation are learned too.",
    )
    b.add_argument(
        "--camera",
        required=True,
        metavar="SOURCE",
        help="camera index (0), image or video file, or stream URL",
    )
    b.add_argument(
        "--size",
        default="1280x720",
        metavar="WxH",
        help="resolution to ask a camera (an index) for (default 1280x720; most webcams open at "
        "640x480 otherwise); the profile is for the frames it gives, and `nardy serve` asks for the same",
    )
    b.add_argument("--corners", nargs=4, metavar="X,Y", help=CORNER_HELP)
    b.add_argument("--markers", action="store_true", help="take the corners from ArUco markers on the frame")
    b.add_argument("--variant", default="short", help="short or long (default short)")
    b.add_argument(
        "--home",
        choices=["top-left", "top-right", "bottom-right", "bottom-left"],
        help="corner of white's point 1 (else inferred from the start position)",
    )
    b.add_argument(
        "--white",
        choices=["light", "dark"],
        default="light",
        help="which checker colour is white (default light)",
    )
    b.add_argument(
        "--profile", type=Path, help="an existing profile to update (keeps its lens and proportions)"
    )
    b.add_argument(
        "--remeasure",
        action="store_true",
        help="measure the bar and the height in this frame even when --profile gives them (say after "
        "`nardy calibrate check` found the profile holds another board's proportions)",
    )
    b.add_argument("--out", type=Path, required=True, help="profile file to write (JSON)")
    b.add_argument("--debug", type=Path, help="debug image to write (default: OUT with -debug.png)")
    b.set_defaults(func=run_board)

    c = sub.add_parser(
        "camera",
        help="calibrate the lens from photos of a chessboard or ChArUco pattern",
        description="Calibrate the camera's lens (cv2.calibrateCamera) from 4 or more photos "
        "of a printed pattern at different angles, and store it in a profile.",
    )
    c.add_argument("images", nargs="+", type=Path, help="photos of the pattern, all the same size")
    c.add_argument("--pattern", choices=["chessboard", "charuco"], default="chessboard")
    c.add_argument(
        "--size",
        default="9x6",
        help="chessboard: inner corners COLSxROWS; charuco: squares COLSxROWS (default 9x6)",
    )
    c.add_argument("--square", type=float, default=1.0, help="square side (any unit; default 1)")
    c.add_argument("--profile", type=Path, help="profile to store the lens in (updated in place)")
    c.add_argument("--out", type=Path, help="write the intrinsics as JSON here")
    c.set_defaults(func=run_camera)

    m = sub.add_parser(
        "markers",
        help="write a printable sheet of the four corner markers",
        description="Write the four ArUco corner markers as a printable A4 sheet (PDF or PNG).",
    )
    m.add_argument("--out", type=Path, required=True, help="FILE.pdf or FILE.png")
    m.add_argument("--size-mm", type=float, default=30.0, help="printed marker side in mm (default 30)")
    m.add_argument("--dpi", type=int, default=300, help="resolution (default 300)")
    m.set_defaults(func=run_markers)

    k = sub.add_parser(
        "check",
        help="how well a profile fits a frame",
        description="Measure how well a profile's corners fit a frame, and whether the finder "
        "sees the board elsewhere (the camera moved).",
    )
    k.add_argument("--profile", type=Path, required=True)
    k.add_argument("image", help="image file, camera index or URL")
    k.add_argument("--json", action="store_true", help="print the result as JSON")
    k.set_defaults(func=run_check)
    p.set_defaults(func=lambda args: _no_step(p))


def _no_step(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def _err(msg: str) -> int:
    print(f"nardy calibrate: {msg}", file=sys.stderr)
    return 2


IN_FRAME = 0.5
"""Corners given by hand must put at least this share of the board inside the frame: a corner cut
off by the frame's edge is a real setup, a board mostly outside it a slip (or another camera's)."""


def _share_in_frame(corners: Any, size: tuple[int, int]) -> float:
    """How much of the quadrilateral ``corners`` (4, 2) lies inside a frame of ``size`` (0..1)."""
    import cv2
    import numpy as np

    from nardy.calibration.quads import quad_area

    quad = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    w, h = size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    area = quad_area(quad.astype(np.float64))
    inside, _ = cv2.intersectConvexConvex(quad, frame)
    return float(inside) / area if area > 0 else 0.0


def _parse_corners(items: list[str]) -> Any:
    import numpy as np

    try:
        pts = [tuple(float(v) for v in item.split(",")) for item in items]
    except ValueError:
        raise ValueError(f"corners must look like X,Y, not {' '.join(items)}") from None
    if any(len(p) != 2 for p in pts):
        raise ValueError(f"corners must look like X,Y, not {' '.join(items)}")
    return np.asarray(pts, dtype=np.float64)


def run_board(args: argparse.Namespace) -> int:
    from dataclasses import replace

    import cv2
    import numpy as np

    from nardy.calibration.colours import ColourConfig, ColourError, learn_from_start
    from nardy.calibration.config import FinderConfig
    from nardy.calibration.debug import draw_board
    from nardy.calibration.finder import find_board
    from nardy.calibration.markers import MarkerError, corners_from_markers, detect_markers, learn_markers
    from nardy.calibration.orientation import Orientation
    from nardy.calibration.profile import Profile, ProfileError
    from nardy.calibration.source import SourceError, read_frame
    from nardy.vision.config import RecognizerConfig
    from nardy.vision.geometry import BoardGeometry, checked_corners
    from nardy.vision.proportions import with_measured_proportions

    try:
        frame = read_frame(args.camera, size=parse_size(args.size))
        old = Profile.load(args.profile) if args.profile else None
    except (SourceError, ValueError) as exc:  # ProfileError is a ValueError
        return _err(str(exc))
    size = (frame.shape[1], frame.shape[0])
    geometry = old.geometry if old else None
    found_markers = detect_markers(frame)
    confidence, source, ok = 1.0, "manual", True
    alternatives: tuple[Any, ...] = ()
    found_with = BoardGeometry()  # the proportions the finder found the board with
    try:
        if args.corners:
            corners = _parse_corners(args.corners)
        elif args.markers:
            corners = corners_from_markers(found_markers, old.markers if old else None, geometry)
            source = "markers"
        else:
            finding = find_board(FinderConfig(), frame, geometry)
            print(finding.summary())
            if finding.corners is None:
                return 1
            corners, confidence, ok, source = finding.corners, finding.confidence, finding.ok, "auto"
            alternatives = finding.alternatives
            found_with = finding.geometry or found_with
        corners = checked_corners(corners)
    except (ValueError, MarkerError) as exc:
        return _err(str(exc))
    if source == "manual" and (share := _share_in_frame(corners, size)) < IN_FRAME:
        pts = " ".join(f"{x:g},{y:g}" for x, y in corners)
        return _err(
            f"the corners {pts} put {share:.0%} of the board inside the {size[0]}x{size[1]} frame: "
            "give the playing area's corners in this frame's pixels"
        )
    changes: dict[str, Any] = {}
    if geometry is None or args.remeasure:
        # the board's own bar (a folding board's hinge is far narrower than a tournament board's bar)
        # and height (from the checkers' spacing along the points)
        start = replace(RecognizerConfig(), geometry=found_with)
        geometry = with_measured_proportions(start, frame, np.asarray(corners, float))
        default = BoardGeometry()
        for what, now, was, usual, unit in (
            ("bar", geometry.bar_width, found_with.bar_width, default.bar_width, "of the playing width"),
            ("height", geometry.height, found_with.height, default.height, "of the playing width"),
        ):
            if now != was:
                how = "measured"
            elif was != usual:
                how = "as the board was found with; measured so, or not measurable"
            else:
                how = "as assumed: measured so, or not measurable"
            print(f"{what} {now:.3f} {unit} ({how})")
    changes["geometry"] = geometry  # an earlier profile's proportions are kept, unless remeasured
    orientation, orientation_source = None, None
    if args.home:
        orientation, orientation_source = Orientation(args.home, args.white), "user"
    colours = None
    try:
        reading = learn_from_start(ColourConfig(), frame, corners, args.variant, geometry)
        colours = reading.colours
        print(
            f"start position seen: light {np.round(colours.light.mean).tolist()}, dark "
            f"{np.round(colours.dark.mean).tolist()} (Lab), checker diameter {reading.checker_diameter:.2f} "
            f"point widths, orientation {reading.orientation.home} (sure {reading.margin:.2f})"
        )
        if orientation is None and reading.margin > 0.15:
            o = reading.orientation
            orientation = Orientation(o.home, "light") if args.white == "light" else None
            orientation_source = "start" if orientation else None
        # the diameter measured is printed, not stored: it reads 0.02-0.06 of a point wide on short
        # starts (a stack's thickness lengthens it in an oblique view), and a reader told so read
        # 0.56 points in a hundred fewer right on later positions (97.99% -> 97.43%, 60 rendered
        # frames); the reader keeps the diameter it was fitted for
    except (ColourError, ValueError) as exc:
        print(
            f"colours not learned ({exc}); set up the start position and run again to learn them",
            file=sys.stderr,
        )
    markers = None
    if found_markers and source != "markers":
        markers = learn_markers(found_markers, corners, geometry)
    elif old is not None:
        markers = old.markers
    try:
        profile = Profile(
            corners=tuple((float(x), float(y)) for x, y in corners),
            image_size=size,
            variant=args.variant,
            orientation=orientation,
            orientation_source=orientation_source,  # type: ignore[arg-type]
            corners_source=source,  # type: ignore[arg-type]
            corners_confidence=float(confidence),
            colours=colours,
            intrinsics=old.intrinsics if old else None,
            markers=markers,
            **changes,
        )
    except ProfileError as exc:
        return _err(str(exc))
    profile.save(args.out)
    debug = args.debug or args.out.with_name(args.out.stem + "-debug.png")
    text = f"{source} corners, confidence {confidence:.2f}"
    cv2.imwrite(
        str(debug), draw_board(frame, corners, profile.geometry, text=text, alternatives=alternatives)
    )
    print(f"wrote {args.out} and {debug}")
    if not ok:
        print(
            "the finder is unsure: check the debug image, or give --corners / use --markers", file=sys.stderr
        )
        return 1
    return 0


def run_camera(args: argparse.Namespace) -> int:
    import cv2
    import numpy as np

    from nardy.calibration.lens import LensError, PatternSpec, calibrate_lens
    from nardy.calibration.profile import Profile, ProfileError

    try:
        cols, rows = parse_size(args.size, form="COLUMNSxROWS", example="9x6")
        spec = PatternSpec(args.pattern, cols, rows, args.square)
    except ValueError as exc:
        return _err(str(exc))
    images = []
    for path in args.images:
        im = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if im is None:
            return _err(f"cannot read image {path}")
        images.append(np.asarray(im, dtype=np.uint8))
    try:
        intr, used = calibrate_lens(spec, images)
    except LensError as exc:
        return _err(str(exc))
    print(
        f"lens from {used} of {len(images)} views: fx {intr.k[0, 0]:.1f} fy {intr.k[1, 1]:.1f} "
        f"centre ({intr.k[0, 2]:.1f}, {intr.k[1, 2]:.1f}) k1 {intr.distortion[0]:+.4f} "
        f"k2 {intr.distortion[1]:+.4f}; "
        f"reprojection error {intr.rms:.2f} px"
    )
    if args.out:
        args.out.write_text(json.dumps(intr.to_json(), indent=2) + "\n")
    if args.profile:
        try:
            profile = Profile.load(args.profile)
        except ProfileError as exc:
            return _err(str(exc))
        profile.replace(intrinsics=intr).save(args.profile)
        print(f"stored in {args.profile}")
    return 0


def run_markers(args: argparse.Namespace) -> int:
    from nardy.calibration.markers import SheetConfig, write_sheet

    try:
        path = write_sheet(args.out, SheetConfig(dpi=args.dpi, marker_mm=args.size_mm))
    except (ValueError, OSError) as exc:
        return _err(str(exc))
    print(
        f"wrote {path}: print at 100% scale, cut out the four stickers and put each on the frame with its "
        "arrow touching that corner of the playing area"
    )
    return 0


def run_check(args: argparse.Namespace) -> int:
    from nardy.calibration.check import check_profile
    from nardy.calibration.profile import Profile, ProfileError
    from nardy.calibration.source import SourceError, read_frame

    try:
        profile = Profile.load(args.profile)
        frame = read_frame(args.image, size=profile.image_size)  # a camera: at the profile's size
    except (ProfileError, SourceError) as exc:
        return _err(str(exc))
    report = check_profile(profile, frame)
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(report.text())
    return 0 if report.fits else 1
