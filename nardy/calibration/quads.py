"""Stage 2 of the board finder -- quadrilaterals made of four straight lines.

Every choice of two roughly parallel lines and two other roughly parallel lines that cross them makes
a quadrilateral. Those that are convex, large enough, inside the image and have edges along most of
their four sides are the candidates for the playing area; the pattern check picks among them.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.calibration.config import QuadConfig
from nardy.calibration.edges import LineTrace

F64 = NDArray[np.float64]


def order_clockwise(corners: F64) -> F64:
    """(4, 2) points sorted to go round clockwise on screen (y down), starting from the one nearest the
    image's top-left direction of the centroid (so the result is as upright as the points allow)."""
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    centre = c.mean(axis=0)
    angles = np.arctan2(c[:, 1] - centre[1], c[:, 0] - centre[0])
    ordered = c[np.argsort(angles)]  # increasing angle = clockwise on screen
    start = int(np.argmin(ordered[:, 0] + ordered[:, 1]))
    return np.roll(ordered, -start, axis=0)


def quad_area(corners: F64) -> float:
    x, y = corners[:, 0], corners[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def candidate_quads(
    config: QuadConfig, traces: list[LineTrace], size: tuple[int, int]
) -> list[tuple[F64, float]]:
    """Candidate quadrilaterals (4, 2) clockwise, each with the mean fraction of its sides covered by
    edges, best first. ``traces``: the lines and their edge coverage; ``size``: (width, height)."""
    lines = [tr.line for tr in traces]
    n = len(lines)
    if n < 4:
        return []
    w, h = size
    theta = np.array([ln.theta for ln in lines])
    rho = np.array([ln.rho for ln in lines])
    # angle between lines, folded to 0..pi/2
    diff = np.abs(theta[:, None] - theta[None, :]) % math.pi
    diff = np.minimum(diff, math.pi - diff)
    ui, uj = np.triu_indices(n, 1)
    near = diff[ui, uj] <= math.radians(config.max_opposite_deg)
    pairs = np.column_stack([ui[near], uj[near]])
    if len(pairs) < 2:
        return []
    a_idx, b_idx = np.triu_indices(len(pairs), 1)
    i, j = pairs[a_idx, 0], pairs[a_idx, 1]
    k, m = pairs[b_idx, 0], pairs[b_idx, 1]
    distinct = (i != k) & (i != m) & (j != k) & (j != m)
    crossing = np.minimum.reduce([diff[i, k], diff[i, m], diff[j, k], diff[j, m]]) >= math.radians(
        config.min_corner_deg
    )
    keep = distinct & crossing
    i, j, k, m = i[keep], j[keep], k[keep], m[keep]
    if len(i) == 0:
        return []

    cos, sin = np.cos(theta), np.sin(theta)

    def cross(p: NDArray[np.int64], q: NDArray[np.int64]) -> F64:
        det = cos[p] * sin[q] - sin[p] * cos[q]
        det = np.where(np.abs(det) < 1e-9, np.nan, det)
        x = (rho[p] * sin[q] - rho[q] * sin[p]) / det
        y = (cos[p] * rho[q] - cos[q] * rho[p]) / det
        return np.stack([x, y], axis=-1)

    # corners in order round the quad: sides i, k, j, m
    quads = np.stack([cross(i, k), cross(k, j), cross(j, m), cross(m, i)], axis=1)  # (Q, 4, 2)
    ok = np.all(np.isfinite(quads), axis=(1, 2))
    margin = config.outside * max(w, h)
    ok &= np.all(
        (quads[..., 0] >= -margin)
        & (quads[..., 0] <= w + margin)
        & (quads[..., 1] >= -margin)
        & (quads[..., 1] <= h + margin),
        axis=1,
    )
    edges = np.roll(quads, -1, axis=1) - quads
    turn = (
        edges[:, :, 0] * np.roll(edges, -1, axis=1)[:, :, 1]
        - edges[:, :, 1] * np.roll(edges, -1, axis=1)[:, :, 0]
    )
    convex = np.all(turn > 0, axis=1) | np.all(turn < 0, axis=1)
    ok &= convex
    x, y = quads[..., 0], quads[..., 1]
    area = 0.5 * np.abs(np.sum(x * np.roll(y, -1, axis=1) - y * np.roll(x, -1, axis=1), axis=1))
    ok &= area >= config.min_area * w * h
    lengths = np.linalg.norm(edges, axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        long_side = np.maximum(lengths[:, 0] + lengths[:, 2], lengths[:, 1] + lengths[:, 3])
        short_side = np.minimum(lengths[:, 0] + lengths[:, 2], lengths[:, 1] + lengths[:, 3])
        ok &= long_side <= config.max_aspect * short_side
        # every corner angle large enough
        unit = edges / np.maximum(lengths[..., None], 1e-9)
        cosang = -np.sum(unit * np.roll(unit, 1, axis=1), axis=2)
    ok &= np.all(cosang <= math.cos(math.radians(config.min_corner_deg)), axis=1)
    quads = quads[ok]
    sides = np.stack([i[ok], k[ok], j[ok], m[ok]], axis=1)  # side s runs from corner s-1 to corner s
    if len(quads) == 0:
        return []
    cover = np.zeros((len(quads), 4))
    for s in range(4):
        a, b = quads[:, (s - 1) % 4], quads[:, s]
        for li in np.unique(sides[:, s]):
            sel = sides[:, s] == li
            tr = traces[int(li)]
            foot = tr.line.normal * tr.line.rho
            d = tr.line.direction
            cover[sel, s] = tr.coverage((a[sel] - foot) @ d, (b[sel] - foot) @ d)
    support = np.mean(cover, axis=1) * (
        0.5 + 0.5 * np.min(cover, axis=1) / np.maximum(np.max(cover, axis=1), 1e-9)
    )
    order = np.argsort(-support, kind="stable")
    order = order[support[order] >= config.min_support][: config.max_candidates * config.scan_factor]
    if len(order) == 0:
        return []
    cand = quads[order]
    # clockwise on screen (y down): positive shoelace sum
    x, y = cand[..., 0], cand[..., 1]
    ccw = np.sum(x * np.roll(y, -1, axis=1) - y * np.roll(x, -1, axis=1), axis=1) < 0
    cand[ccw] = cand[ccw, ::-1]
    # near-duplicates: all corners within tol under one of the four cyclic namings
    tol = config.distinct * math.hypot(w, h)
    shifted = np.stack([np.roll(cand, s, axis=1) for s in range(4)], axis=1)  # (M, 4, 4, 2)
    diff = cand[:, None, None, :, :] - shifted[None, :, :, :, :]
    dist = np.sqrt(np.einsum("abscd,abscd->absc", diff, diff).max(axis=3).min(axis=2))
    picked: list[int] = []
    alive = np.ones(len(cand), dtype=bool)
    for c in range(len(cand)):
        if not alive[c]:
            continue
        picked.append(c)
        alive &= dist[c] >= tol
        if len(picked) >= config.max_candidates:
            break
    return [(order_clockwise(cand[q]), float(support[order[q]])) for q in picked]


def unit_homography(quad: F64) -> F64:
    """3x3 homography from the unit square ((0,0), (1,0), (1,1), (0,1)) to ``quad`` (4, 2)."""
    src = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], dtype=np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, np.asarray(quad, dtype=np.float32)), dtype=np.float64)


def misalignment(quad: F64, other: F64) -> float:
    """How far ``other`` (4, 2) is from being an axis-aligned rectangle in ``quad``'s unit coordinates
    (the largest difference between corners that should share a coordinate, in units of ``quad``'s
    size): about 0 when both are rectangles of one plane seen by one camera (the board's outline and
    its playing area), large for unrelated quadrilaterals."""
    inverse = np.asarray(np.linalg.inv(unit_homography(quad)), dtype=np.float64)
    return float(_misalignments(inverse[None], other)[0])


def _misalignments(inverses: F64, other: F64) -> F64:
    """``misalignment`` of ``other`` (4, 2) in each of the quadrilaterals whose ``inverses`` (G, 3, 3)
    of ``unit_homography`` are given: (G,)."""
    p = np.einsum("gij,kj->gki", inverses, np.column_stack([other, np.ones(4)]))  # (G, 4, 3)
    behind = np.any(p[:, :, 2] <= 0, axis=1)
    u = p[:, :, :2] / np.where(p[:, :, 2:3] > 0, p[:, :, 2:3], 1.0)
    best = np.full(len(inverses), np.inf)
    for s in range(4):
        r = np.roll(u, s, axis=1)
        # either r[0]-r[1] and r[3]-r[2] run along x, or along y
        along_x = np.max(
            np.abs(
                np.stack(
                    [
                        r[:, 0, 1] - r[:, 1, 1],
                        r[:, 3, 1] - r[:, 2, 1],
                        r[:, 0, 0] - r[:, 3, 0],
                        r[:, 1, 0] - r[:, 2, 0],
                    ]
                )
            ),
            axis=0,
        )
        best = np.minimum(best, along_x)
    return np.asarray(np.where(behind, np.inf, best), dtype=np.float64)


def perspective_groups(quads: list[F64], tol: float) -> list[list[int]]:
    """Group ``quads`` (in order of preference) whose perspectives agree (``misalignment`` below ``tol``
    with the group's first member); groups in order of their first member, each listing its members'
    indices."""
    groups: list[list[int]] = []
    inverses: F64 = np.zeros((0, 3, 3))
    for i, q in enumerate(quads):
        if len(groups):
            near = np.flatnonzero(_misalignments(inverses, q) < tol)
            if len(near):
                groups[int(near[0])].append(i)
                continue
        groups.append([i])
        inverses = np.concatenate([inverses, np.linalg.inv(unit_homography(q))[None]])
    return groups
