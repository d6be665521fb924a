"""ArUco markers on the frame's corners, for users who want certainty.

Four markers (ids 0, 1, 2, 3 of ``DICT_4X4_50`` for the top-left, top-right, bottom-right and
bottom-left corners) are printed as stickers: the marker with a white margin one module wide. A
sticker goes on the frame, diagonally outside its corner of the playing area, with its *inner* corner
(the one pointing at the playing area) touching that corner. The playing area's corners then follow
from the markers alone (``corners_from_markers``); once a profile has learned where the markers
really are on the board (``learn_markers``), all 16 marker corners fix the board through one
homography, however the stickers were put on.

``marker_sheet`` draws the printable sheet; ``write_sheet`` saves it as PNG or PDF.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.profile import MarkerSet
from nardy.vision.geometry import BoardGeometry, apply_homography, homography_to_image

F64 = NDArray[np.float64]

DICTIONARY = "DICT_4X4_50"
CORNER_IDS = (0, 1, 2, 3)
"""Marker ids for the top-left, top-right, bottom-right and bottom-left corners."""
MODULES = 6
"""A 4x4 marker is 6 modules wide with its black border."""


@dataclass(frozen=True)
class SheetConfig:
    """The printable sheet."""

    dpi: int = 300
    page_mm: tuple[float, float] = (210.0, 297.0)
    """Paper size (A4 portrait)."""
    marker_mm: float = 30.0
    """Printed side of a marker (black border included)."""
    margin_modules: float = 1.0
    """White margin round each marker, in marker modules (the quiet zone detection needs)."""


def dictionary(name: str = DICTIONARY) -> cv2.aruco.Dictionary:
    """The OpenCV ArUco dictionary called ``name`` (e.g. ``DICT_4X4_50``)."""
    code = getattr(cv2.aruco, name, None)
    if not isinstance(code, int):
        raise ValueError(f"unknown ArUco dictionary {name!r}")
    return cv2.aruco.getPredefinedDictionary(code)


def sticker(
    marker_id: int, side_px: int, margin_modules: float = 1.0, name: str = DICTIONARY
) -> NDArray[np.uint8]:
    """One sticker: (S, S) uint8 grey, the marker of ``side_px`` with a white margin."""
    marker = cv2.aruco.generateImageMarker(dictionary(name), marker_id, side_px)
    pad = int(round(side_px / MODULES * margin_modules))
    return np.asarray(
        cv2.copyMakeBorder(marker, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255), dtype=np.uint8
    )


def marker_sheet(config: SheetConfig = SheetConfig(), name: str = DICTIONARY) -> NDArray[np.uint8]:
    """The printable sheet: (H, W) uint8 grey at ``config.dpi``: four stickers with cutting lines, each
    labelled with its corner and an arrow to its inner corner."""
    px_per_mm = config.dpi / 25.4
    w, h = (int(round(v * px_per_mm)) for v in config.page_mm)
    page = np.full((h, w), 255, np.uint8)
    side = int(round(config.marker_mm * px_per_mm))
    labels = ("top-left", "top-right", "bottom-right", "bottom-left")
    inner = ((1, 1), (-1, 1), (-1, -1), (1, -1))  # direction of the inner corner from the sticker's centre
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = px_per_mm * 0.12
    cv2.putText(
        page,
        "nardy board markers - cut along the lines; stick each on the frame, its arrow",
        (int(10 * px_per_mm), int(15 * px_per_mm)),
        font,
        scale,
        0,
        max(1, int(scale * 2)),
        cv2.LINE_AA,
    )
    cv2.putText(
        page,
        "touching the matching corner of the playing area. Print at 100% scale.",
        (int(10 * px_per_mm), int(22 * px_per_mm)),
        font,
        scale,
        0,
        max(1, int(scale * 2)),
        cv2.LINE_AA,
    )
    for k, (marker_id, label, (dx, dy)) in enumerate(zip(CORNER_IDS, labels, inner, strict=True)):
        st = sticker(marker_id, side, config.margin_modules, name)
        s = st.shape[0]
        col, row = k % 2, k // 2
        x0 = int(w * (0.25 + 0.5 * col) - s / 2)
        y0 = int(h * (0.3 + 0.4 * row) - s / 2)
        page[y0 : y0 + s, x0 : x0 + s] = st
        cv2.rectangle(page, (x0, y0), (x0 + s - 1, y0 + s - 1), 160, 1)
        cx, cy = x0 + s // 2, y0 + s // 2
        tip = (cx + dx * (s // 2 + int(6 * px_per_mm)), cy + dy * (s // 2 + int(6 * px_per_mm)))
        cv2.arrowedLine(
            page,
            (cx + dx * (s // 2 + 2), cy + dy * (s // 2 + 2)),
            tip,
            0,
            max(1, int(px_per_mm / 2)),
            cv2.LINE_AA,
            tipLength=0.3,
        )
        cv2.putText(
            page,
            f"{label} (id {marker_id})",
            (x0, y0 + s + int(14 * px_per_mm)),
            font,
            scale,
            0,
            max(1, int(scale * 2)),
            cv2.LINE_AA,
        )
    return page


def write_sheet(path: str | Path, config: SheetConfig = SheetConfig(), name: str = DICTIONARY) -> Path:
    """Write the sheet as ``.png`` or ``.pdf`` (chosen by the suffix)."""
    p = Path(path)
    page = marker_sheet(config, name)
    if p.suffix.lower() == ".pdf":
        p.write_bytes(_pdf(page, config))
    elif p.suffix.lower() == ".png":
        if not cv2.imwrite(str(p), page):
            raise OSError(f"cannot write {p}")
    else:
        raise ValueError(f"write the marker sheet as .png or .pdf, not {p.suffix or 'no suffix'}")
    return p


def _pdf(page: NDArray[np.uint8], config: SheetConfig) -> bytes:
    """A one-page PDF showing the grey image ``page`` across the whole paper."""
    h, w = page.shape
    wpt, hpt = (v / 25.4 * 72.0 for v in config.page_mm)
    data = zlib.compress(page.tobytes(), 9)
    content = f"q {wpt:.2f} 0 0 {hpt:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {wpt:.2f} {hpt:.2f}] "
            "/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>"
        ).encode(),
        b"<< /Length " + str(len(content)).encode() + b" >>\nstream\n" + content + b"\nendstream",
        (
            f"<< /Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray "
            f"/BitsPerComponent 8 /Filter /FlateDecode /Length {len(data)} >>\nstream\n"
        ).encode()
        + data
        + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + obj + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


# -- detection --------------------------------------------------------------------------------------------
def detect_markers(image: NDArray[np.uint8], name: str = DICTIONARY) -> dict[int, F64]:
    """ArUco markers in ``image`` (H, W, 3) uint8 BGR or (H, W) grey: ``{id: (4, 2) corners}`` in the
    marker's own order (its top-left, top-right, bottom-right, bottom-left), refined to sub-pixel."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(dictionary(name), params)
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    detected: Any = detector.detectMarkers(grey)
    corners, ids = detected[0], detected[1]
    out: dict[int, F64] = {}
    if ids is None:
        return out
    for c, i in zip(corners, np.asarray(ids).reshape(-1), strict=True):
        out.setdefault(int(i), np.asarray(c, dtype=np.float64).reshape(4, 2))
    return out


class MarkerError(ValueError):
    """The markers seen do not give the board's corners (some missing, unknown ids)."""


def corners_from_markers(
    found: dict[int, F64],
    markers: MarkerSet | None = None,
    geometry: BoardGeometry | None = None,
    margin_modules: float = 1.0,
) -> F64:
    """The playing area's corners (4, 2) (TL, TR, BR, BL) from detected markers.

    With a ``markers`` set that has learned ``board_corners``, every seen marker of it counts (at
    least two): a homography from their 4 corners each. Without, the four corner stickers are needed
    and each gives its corner: the sticker's inner corner, one margin beyond the marker's inner corner.
    """
    if markers is not None and markers.board_corners:
        board, image = [], []
        for mid, bc in zip(markers.ids, markers.board_corners, strict=True):
            if mid in found:
                board.append(np.asarray(bc, dtype=np.float64))
                image.append(found[mid])
        if len(board) < 2:
            raise MarkerError(f"need at least 2 of the markers {list(markers.ids)}, saw {sorted(found)}")
        h, _ = cv2.findHomography(np.vstack(board), np.vstack(image), 0)
        if h is None:
            raise MarkerError("the markers seen do not fix the board (degenerate layout)")
        g = geometry or BoardGeometry()
        return apply_homography(np.asarray(h, dtype=np.float64), np.asarray(g.corners(), dtype=np.float64))
    ids = markers.ids if markers is not None else CORNER_IDS
    missing = [i for i in ids[:4] if i not in found]
    if missing:
        raise MarkerError(f"markers {missing} not seen (need the four corner markers {list(ids[:4])})")
    quads = [found[i] for i in ids[:4]]
    centre = np.mean([q.mean(axis=0) for q in quads], axis=0)
    out = []
    m = margin_modules / (MODULES - 0.0)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float64)
    for q in quads:
        k = int(np.argmin(np.linalg.norm(q - centre, axis=1)))
        h = cv2.getPerspectiveTransform(unit.astype(np.float32), q.astype(np.float32))
        target = unit[k] + m * np.sign(unit[k] - 0.5)
        out.append(apply_homography(np.asarray(h, dtype=np.float64), target[None, :])[0])
    return np.asarray(out, dtype=np.float64)


def learn_markers(
    found: dict[int, F64], corners: F64, geometry: BoardGeometry | None = None, name: str = DICTIONARY
) -> MarkerSet:
    """Where each seen marker lies on the board, given the playing area's ``corners`` in the same
    frame: a ``MarkerSet`` for the profile."""
    g = geometry or BoardGeometry()
    h = homography_to_image(g, corners)
    inv = np.linalg.inv(h)
    ids = tuple(sorted(found))
    board = tuple(
        tuple((float(x), float(y)) for x, y in apply_homography(np.asarray(inv, dtype=np.float64), found[i]))
        for i in ids
    )
    return MarkerSet(name, ids, board)
