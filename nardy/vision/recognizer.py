"""``Recognizer``: frames of one camera position in, ``Observation`` out.

It is built once from the playing area's image corners (and optionally the camera's intrinsics and
the two checker colours, which calibration learns) and reused for every frame::

    rec = Recognizer(RecognizerConfig(), corners)
    obs = rec.read(frame)            # frame: (H, W, 3) uint8 BGR
    obs.layout()                     # most likely BoardLayout
    obs.top[0].counts                # P(0..15 checkers) on the top-left point

The stages, each a pure function of its own module: rectify -> evidence -> detect -> count -> colour
-> settle. The one thing a recognizer keeps from frame to frame is the two checker colours of the
still frames that showed both (``memory``): a board with one side's checkers alone is read against
them. Frames of another board need a recognizer of their own.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from nardy.vision.colour import (
    agrees,
    colour_groups,
    each_holds,
    group_distance,
    light_probabilities,
    remembered,
)
from nardy.vision.config import RecognizerConfig
from nardy.vision.count import (
    Line,
    bar_discs,
    column_cover,
    column_profiles,
    count_distribution,
    count_lines,
    layer_counts,
    with_misses,
)
from nardy.vision.detect import Detector, feature_maps, score_map
from nardy.vision.evidence import evidence
from nardy.vision.geometry import POINTS_PER_ROW, checked_corners, homography_to_image
from nardy.vision.layout import CHECKERS_PER_SIDE
from nardy.vision.masks import BoardMasks, board_masks
from nardy.vision.observation import CountReading, Observation, PointReading
from nardy.vision.rectify import Intrinsics, RectifyMaps, rectify, rectify_maps
from nardy.vision.settle import (
    FrameSide,
    MotionFrame,
    Unsettled,
    frame_crossings,
    frame_sides,
    motion_frame,
    moved_places,
    place_name,
    under_reflection,
    unsettled_places,
)
from nardy.vision.stats import clamp, median, window_means
from nardy.vision.tray import TrayView, board_to_frame, off_counts, read_tray, row_light, tray_view

T = TypeVar("T")
F64 = NDArray[np.float64]
Groups = tuple[F64, F64, F64] | None
"""The two checker colours found on the points, and their spread (``colour_groups``)."""
Columns = tuple[NDArray[np.float32], NDArray[np.int32], NDArray[np.float32]]
"""The count stage's view of the columns: detector profiles, their x, and the cover (``count_lines``)."""


def _timed(timings: dict[str, float], name: str, fn: Callable[[], T]) -> T:
    t0 = time.perf_counter()
    out = fn()
    timings[name] = timings.get(name, 0.0) + (time.perf_counter() - t0) * 1000.0
    return out


def _pad(p: F64, n: int) -> tuple[float, ...]:
    out = np.zeros(n + 1)
    out[: min(len(p), n + 1)] = p[: n + 1]
    s = out.sum()
    return tuple((out / s if s > 0 else out).tolist())


def _median_rows(x: F64) -> F64:
    """``np.median(x, axis=0)`` of a few rows, without its overhead."""
    s = np.sort(x, axis=0)
    n = len(s)
    return np.asarray(s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2]), dtype=np.float64)


def _flattened(p: tuple[float, ...], doubt: float) -> tuple[float, ...]:
    """``p`` with a share ``doubt`` of it spread evenly over every count (the most likely stays)."""
    return tuple((1.0 - doubt) * v + doubt / len(p) for v in p)


def _doubted(reading: PointReading, doubt: float) -> PointReading:
    """``reading`` with a share ``doubt`` of its counts spread over every count and of its colour
    over both (the most likely stack stays the most likely, with less confidence)."""
    return PointReading(_flattened(reading.counts, doubt), (1.0 - doubt) * reading.p_light + doubt * 0.5)


class Recognizer:
    """Reads frames from one camera position.

    ``corners``: (4, 2) image (x, y) of the playing area's top-left, top-right, bottom-right and
    bottom-left corners. ``intrinsics``: a calibrated camera (also undoes lens distortion).
    ``colours``: the (light, dark) checker colours in Lab (OpenCV 8-bit scaling), if known.
    ``detector``: a checker detector already loaded (default: the model ``config.detect.model``).
    """

    def __init__(
        self,
        config: RecognizerConfig,
        corners: NDArray[np.floating],
        *,
        intrinsics: Intrinsics | None = None,
        colours: tuple[NDArray[np.floating], NDArray[np.floating]] | None = None,
        detector: Detector | None = None,
    ) -> None:
        self.config = config
        self.corners = checked_corners(corners)
        self.intrinsics = intrinsics
        self.colours = (
            None
            if colours is None
            else (np.asarray(colours[0], np.float64), np.asarray(colours[1], np.float64))
        )
        self.detector = detector or Detector.load(config.detect.model or None)
        fitted = self.detector.side_margin
        if fitted is not None and fitted != config.rectify.side_margin:
            raise ValueError(
                f"the detector was fitted on views with a side margin of {fitted} point widths, "
                f"the configuration has {config.rectify.side_margin}"
            )
        self._maps: RectifyMaps | None = None
        self._masks: BoardMasks | None = None
        self._where: NDArray[np.bool_] | None = None
        self._where_flat: NDArray[np.intp] | None = None
        self._tray: TrayView | None = None
        self._frame_sides: tuple[FrameSide, ...] = ()
        self._previous: MotionFrame | None = None
        """The last frame's rectified view as the motion watch keeps it (``settle.moved_places``)."""
        self.memory: Groups = None
        """The two checker colours (``colour_groups``'s form) remembered from still frames that
        showed both; a frame that shows one colour only is read against them."""

    def prepare(self, frame_size: tuple[int, int]) -> RectifyMaps:
        """Build (or reuse) the lookups for frames of ``frame_size`` (width, height)."""
        if self._maps is None or self._maps.frame_size != frame_size:
            cfg = self.config
            self._previous = None
            self._maps = rectify_maps(cfg.rectify, cfg.geometry, self.corners, frame_size, self.intrinsics)
            self._masks = board_masks(
                cfg.geometry,
                self._maps.px_per_unit,
                self._maps.size,
                cfg.evidence.edge_margin,
                self._maps.surface,
                self._maps.left,
            )
            w, h = self._maps.size
            where = np.zeros((h, w), bool)
            stride = max(1, cfg.detect.loose_stride)
            where[::stride, ::stride] = True
            slip = max(1, int(round(cfg.count.slip * self.point_px)))
            for x in [*self._masks.column_x, self._masks.bar_x]:
                xi = int(round(x))
                where[:, max(0, xi - slip) : xi + slip + 1] = True
            self._where = where
            self._where_flat = np.flatnonzero(where)
            # what lies outside the playing area (the tray, the frame) is seen the way the
            # rectifier sees the playing area: the corners' homography, and the lens when calibrated
            camera, board_h, lens = self._maps.camera, *self._board_projection()
            self._tray = tray_view(cfg.tray, cfg.geometry, camera, board_h, frame_size, cfg.max_count, lens)
            self._frame_sides = frame_sides(
                cfg.settle,
                cfg.geometry,
                frame_size,
                lambda p: board_to_frame(camera, board_h, np.c_[p, np.zeros(len(p))], lens),
                camera.position,
                cfg.max_count,
            )
        return self._maps

    def _board_projection(
        self,
    ) -> tuple[NDArray[np.float64], tuple[NDArray[np.float64], NDArray[np.float64]] | None]:
        """The homography from the board's plane to (undistorted) frame pixels, and the lens (k,
        dist) when the camera is calibrated."""
        corners = self.corners
        lens = None
        if self.intrinsics is not None:
            k, dist = self.intrinsics.k, self.intrinsics.dist
            corners = np.asarray(
                cv2.undistortPoints(corners.reshape(-1, 1, 2), k, dist, P=k), dtype=np.float64
            ).reshape(4, 2)
            lens = (np.asarray(k, np.float64), np.asarray(dist, np.float64))
        return homography_to_image(self.config.geometry, corners), lens

    @property
    def masks(self) -> BoardMasks | None:
        """The rectified view's regions and column centre lines (once a frame size is prepared)."""
        return self._masks

    @property
    def point_px(self) -> float:
        return float(self.config.rectify.point_px)

    @property
    def diameter_px(self) -> float:
        return self.config.geometry.checker_diameter * self.point_px

    def read(self, frame: NDArray[np.uint8], *, consecutive: bool = False) -> Observation:
        """frame (H, W, 3) uint8 BGR -> ``Observation``.

        ``consecutive``: the frame follows the last one read, from the same camera (a live stream,
        a video read frame by frame): what moved since then is not settled either
        (``settle.moved_places``). Off for photos or frames sampled far apart."""
        if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
            raise ValueError(f"expected an (H, W, 3) uint8 BGR frame, got {frame.shape} {frame.dtype}")
        cfg = self.config
        timings: dict[str, float] = {}
        maps = _timed(timings, "prepare", lambda: self.prepare((frame.shape[1], frame.shape[0])))
        masks = self._masks
        assert masks is not None
        rect = _timed(timings, "rectify", lambda: rectify(maps, frame))
        ev = _timed(timings, "evidence", lambda: evidence(cfg.evidence, masks, rect))
        d = self.diameter_px

        def detect() -> tuple[NDArray[np.float32], list[NDArray[np.float32]]]:
            fmaps = feature_maps(cfg.detect, ev, d)
            return score_map(self.detector, fmaps, self._where, self._where_flat), fmaps

        score, fmaps = _timed(timings, "detect", detect)

        cap = cfg.geometry.line_capacity

        def piled(line: Line) -> F64:
            """What lies on ``line`` in a second layer (a pile lies on a full line: the best full one
            when the best line is shorter)."""
            head, upper = self.detector.layer, self.detector.upper
            return layer_counts(
                cfg.count, score, line.full or line, d, cfg.max_count, cap, head, fmaps, upper
            )

        def count() -> tuple[
            list[Line], list[Line], list[tuple[float, float]], list[float], list[F64], Columns
        ]:
            profiles, slips = column_profiles(cfg.count, score, masks.column_x, self.point_px)
            cover = column_cover(cfg.count, ev.difference, masks.column_x, self.point_px)
            tops, bottoms = count_lines(cfg.count, profiles, slips, d, cfg.count.max_line, cover, cap)
            bar_prof, bar_slip = column_profiles(cfg.count, score, np.array([masks.bar_x]), self.point_px)
            centres, odds = bar_discs(cfg.count, bar_prof[0], bar_slip[0], d, cfg.count.bar_limit)
            extras = [piled(line) for line in tops + bottoms]
            return tops, bottoms, centres, odds, extras, (profiles, slips, cover)

        tops, bottoms, bar_centres, bar_odds, extras, columns = _timed(timings, "count", count)

        def recount(cols: list[int], fixed: NDArray[np.intp]) -> tuple[list[Line], list[Line]]:
            """The lines of columns ``cols`` counted again, with the numbers of discs ``fixed`` (2,
            len(cols)) where known (-1 where not)."""
            profiles, slips, cover = columns
            return count_lines(
                cfg.count, profiles[cols], slips[cols], d, cfg.count.max_line, cover[cols], cap, fixed
            )

        def colour() -> tuple[
            F64,
            F64,
            list[int],
            list[int],
            list[Line],
            list[NDArray[np.bool_]],
            NDArray[np.bool_],
            Groups,
            Groups,
        ]:
            k = max(3, int(round(self.diameter_px * 0.4)) | 1)
            h, w = ev.lab.shape[:2]
            off, correction = cfg.evidence.dark_offset, cfg.colour.light_correction

            def looks(centres: tuple[tuple[float, float], ...] | list[tuple[float, float]]) -> F64:
                """(n, 3) Lab colours round ``centres``, with (some of) the uneven light undone on the
                lightness, so light and dark are judged alike everywhere."""
                c = np.rint(np.asarray(centres, dtype=np.float64).reshape(-1, 2)).astype(np.intp)
                ys, xs = clamp(c[:, 1], 0, h - 1), clamp(c[:, 0], 0, w - 1)
                # the k x k box blur of the Lab view there (only where it is looked at)
                cols = np.asarray(window_means(ev.lab, ys, xs, k), dtype=np.float64)
                gain = np.asarray(ev.gain[ys, xs], dtype=np.float64) ** correction
                cols[:, 0] = (cols[:, 0] + off) / gain - off
                return cols

            lines: list[Line] = []
            samples: list[F64] = []
            weights: list[float] = []
            disc_colours: list[F64] = []
            every = [c for line in tops + bottoms for c in line.centres]
            seen = looks(every + list(bar_centres))  # the lines' discs, then the bar's candidates
            bar_cols = seen[len(every) :]
            ends = np.cumsum([len(line.centres) for line in tops + bottoms])
            sampled = np.split(seen[: len(every)], ends[:-1])
            raw = tops + bottoms
            consistent = self._consistent_lines(raw, sampled)
            split, fixed = self._crossing_cuts(raw, consistent, h)
            if split:
                # a line that ran on past the middle into the other point's stack of the other
                # colour: the line is kept as cut, and the column's other line found beside it
                new_tops, new_bottoms = recount(split, fixed)
                redo = [
                    c + side * POINTS_PER_ROW
                    for side in (0, 1)
                    for c, known in zip(split, fixed[side], strict=True)
                    if known < 0
                ]
                new = dict(
                    zip(split + [c + POINTS_PER_ROW for c in split], new_tops + new_bottoms, strict=True)
                )
                for i in redo:
                    raw[i] = new[i]
                    sampled[i] = looks(new[i].centres) if new[i].centres else np.zeros((0, 3))
                    extras[i] = piled(new[i])
                again = self._consistent_lines([raw[i] for i in redo], [sampled[i] for i in redo])
                for i, line in zip(redo, again, strict=True):
                    consistent[i] = line
            for line, cols in zip(consistent, sampled, strict=True):
                if line.centres:
                    samples.append(_median_rows(cols[: len(line.centres)]))
                    weights.append(float(len(line.centres)))
                    disc_colours.append(cols[: len(line.centres)])
                else:
                    samples.append(np.zeros(3))
                    weights.append(0.0)
                    disc_colours.append(np.zeros((0, 3)))
                lines.append(line)
            occupied = [i for i, wgt in enumerate(weights) if wgt > 0]
            bar_samples = list(bar_cols[[k for k, o in enumerate(bar_odds) if o > 0]])
            colours = np.array([samples[i] for i in occupied] + bar_samples).reshape(-1, 3)
            wts = np.array([weights[i] for i in occupied] + [1.0] * len(bar_samples))
            # the points' stacks define the two colours when there are enough of them
            defining = np.arange(len(colours)) < len(occupied) if len(occupied) >= 2 else None
            # ... each by how surely it holds checkers at all (an empty point's base is no colour)
            sure = np.array([1.0 - lines[i].probabilities[0] for i in occupied] + [1.0] * len(bar_samples))
            sure_wts = wts * np.clip(sure, 0.0, 1.0) ** cfg.colour.certainty_power
            groups_found = colour_groups(cfg.colour, colours, sure_wts, self.colours, defining)
            # what the memory becomes if the frame turns out still (settle decides)
            memory = self.memory
            if groups_found is not None and self.colours is None:
                memory = remembered(cfg.colour, self.memory, groups_found, colours, sure_wts)
            if (
                self.memory is not None
                and memory is self.memory
                and groups_found is not None
                and not agrees(cfg.colour, self.memory, groups_found)
                and each_holds(cfg.colour, groups_found, colours, sure_wts)
                and self._both_sides(lines, extras)
            ):
                # a board that holds both sides' checkers, split in two colours of its own that
                # are not the two remembered: the memory is wrong (taken from a frame with a hand
                # in it, called still) and is taken afresh from this frame, which is read by its own
                memory = (groups_found[0].copy(), groups_found[1].copy(), groups_found[2].copy())
            elif self.memory is not None and len(colours):
                if groups_found is None or not agrees(cfg.colour, self.memory, groups_found):
                    # one colour left (or its stacks split in lit and shaded): judged against
                    # the two remembered
                    groups_found = self.memory
            p = light_probabilities(cfg.colour, colours, wts, self.colours, defining, groups_found)
            p_lines = np.full(len(lines), 0.5)
            p_lines[occupied] = p[: len(occupied)]
            p_bar_all = np.full(len(bar_centres), 0.5)
            pos = [k for k, o in enumerate(bar_odds) if o > 0]
            p_bar_all[pos] = p[len(occupied) :]
            if len(bar_centres) > len(pos):  # weak bar candidates: colour them against the groups too
                weak = [k for k, o in enumerate(bar_odds) if o <= 0]
                ref = np.array([samples[i] for i in occupied] + list(bar_cols[weak])).reshape(-1, 3)
                pw = light_probabilities(
                    cfg.colour,
                    ref,
                    np.array([weights[i] for i in occupied] + [0.1] * len(weak)),
                    self.colours,
                    np.arange(len(ref)) < len(occupied) if len(occupied) >= 2 else None,
                    groups_found if len(occupied) >= 2 else None,
                )
                p_bar_all[weak] = pw[len(occupied) :]
            # a "stack" whose colour is far from both checker colours is something else (a hand)
            strange: list[int] = []
            if len(occupied) >= 2:
                occ = np.array([samples[i] for i in occupied])
                pl = p_lines[occupied]
                groups = [occ[pl >= 0.5], occ[pl < 0.5]]
                centres = [g.mean(axis=0) for g in groups if len(g)]
                dist = np.min([np.linalg.norm(occ - c, axis=1) for c in centres], axis=0)
                spread = max(cfg.colour.spread_floor, float(median(dist)))
                limit = max(cfg.colour.outlier, cfg.colour.outlier_spreads * spread)
                strange = [occupied[k] for k in np.flatnonzero(dist > limit)]
            # a short stack far from both checker colours may be no checker at all (a point's base)
            if len(occupied) >= 3 and groups_found is not None and cfg.colour.stranger_penalty > 0:
                far = group_distance(cfg.colour, groups_found, np.array([samples[i] for i in occupied]))
                for k, i in enumerate(occupied):
                    excess = far[k] - cfg.colour.stranger_spreads
                    if excess > 0:
                        pen = min(cfg.colour.stranger_cap, cfg.colour.stranger_penalty * excess)
                        q = lines[i].probabilities.copy()
                        q[1:] *= np.exp(-pen)
                        lines[i] = Line(q / q.sum(), lines[i].centres, lines[i].scores)
            # a stranger now more likely nothing than checkers is a point's base, not a hand
            strange = [i for i in strange if lines[i].probabilities[0] < 0.5]
            # ... and one in a lamp's reflection is a checker lit up (dark made light, light whiter)
            counted = [c for line in lines for c in line.centres] if strange else []
            lit = [
                i
                for i in strange
                if under_reflection(cfg.settle, masks, ev, lines[i].centres, counted, d / 2)
            ]
            strange = [i for i in strange if i not in lit]
            # which counted discs look like checkers at all (the others explain nothing to settle)
            limit_spreads = cfg.settle.checker_spreads
            if groups_found is None:
                alike = [np.ones(len(c), bool) for c in disc_colours]
                bar_alike = np.ones(len(bar_centres), bool)
            else:
                # a line by its typical colour (glare can make one disc of a real stack look unlike)
                far = group_distance(cfg.colour, groups_found, np.array(samples).reshape(-1, 3))
                alike = [np.full(len(c), f <= limit_spreads) for c, f in zip(disc_colours, far, strict=True)]
                bar_alike = group_distance(cfg.colour, groups_found, bar_cols) <= limit_spreads
            return p_lines, p_bar_all, strange, lit, lines, alike, bar_alike, groups_found, memory

        p_lines, p_bar, strange, lit, checked, alike, bar_alike, groups, memory = _timed(
            timings, "colour", colour
        )
        tops, bottoms = checked[:POINTS_PER_ROW], checked[POINTS_PER_ROW:]

        def tray() -> CountReading | None:
            view = self._tray
            assert view is not None
            reading = read_tray(cfg.tray, view, frame)
            # the rows' colours are told by the two checker colours the points show
            if not reading.readable or groups is None:
                return None
            w = np.array([cfg.colour.lightness_weight, 1.0, 1.0])
            p = row_light(cfg.tray, reading, groups[0] / w, groups[1] / w)
            light, dark = off_counts(reading.counts, p, cfg.max_count)
            return CountReading(_pad(light, cfg.max_count), _pad(dark, cfg.max_count))

        tray_read = _timed(timings, "tray", tray)

        def settle() -> Unsettled:
            lines = tops + bottoms
            discs = [
                c
                for line, ok in zip(lines, alike, strict=True)
                for c, a in zip(line.centres, ok, strict=True)
                if a
            ]
            discs += [c for c, o, a in zip(bar_centres, bar_odds, bar_alike, strict=True) if o > 0 and a]
            cap = cfg.geometry.line_capacity
            piles = [
                (line.centres[0], line.centres[-1])
                for line, ok in zip(lines, alike, strict=True)
                if len(line.centres) >= cap and ok[: len(line.centres)].all()
            ]
            found = unsettled_places(
                cfg.settle,
                masks,
                ev.settle_difference,
                score,
                discs,
                d / 2,
                piles,
                cfg.geometry.tray_side,
                ev,
            )
            if consecutive and previous is not None and view is not None:
                moved = moved_places(cfg.settle, masks, view, previous, self.point_px)
                if moved:
                    found = dataclasses.replace(found, places=tuple(dict.fromkeys(found.places + moved)))
            if not cfg.settle.frame_watch:
                return found
            # an arm over the frame: a hand may be over a board of nearly its own colour
            # (what stands on each point from its base: a full line may carry a pile the count
            # does not see, as high as any)
            occupied = {
                place_name(i): len(line.centres) if len(line.centres) < cap else cfg.max_count
                for i, line in enumerate(lines)
                if len(line.centres) and alike[i][:1].all()
            }
            crossed = frame_crossings(cfg.settle, frame, self._frame_sides, occupied)
            if not crossed:
                return found
            return dataclasses.replace(found, places=tuple(dict.fromkeys(found.places + crossed)))

        view = _timed(timings, "settle", lambda: motion_frame(rect)) if cfg.settle.motion_watch else None
        previous, self._previous = self._previous, view
        found = _timed(timings, "settle", settle)
        unsettled = found.places
        unsettled = tuple(dict.fromkeys(unsettled + tuple(place_name(i) for i in strange)))
        glare = tuple(dict.fromkeys(found.glare + tuple(place_name(i) for i in lit)))
        if not unsettled:
            self.memory = memory

        def assemble() -> tuple[
            tuple[PointReading, ...], tuple[PointReading, ...], CountReading, CountReading
        ]:
            n = cfg.max_count
            counts = self._combined(tops + bottoms, extras)
            readings = [
                PointReading(tuple(row), float(p)) for row, p in zip(counts.tolist(), p_lines, strict=True)
            ]
            top_r, bottom_r = tuple(readings[:POINTS_PER_ROW]), tuple(readings[POINTS_PER_ROW:])
            exist = 1.0 / (1.0 + np.exp(-np.asarray(bar_odds, dtype=np.float64)))
            light_odds = [
                float(np.log(max(e * pl, 1e-12) / max(1 - e * pl, 1e-12)))
                for e, pl in zip(exist, p_bar, strict=True)
            ]
            dark_odds = [
                float(np.log(max(e * (1 - pl), 1e-12) / max(1 - e * (1 - pl), 1e-12)))
                for e, pl in zip(exist, p_bar, strict=True)
            ]
            miss = cfg.count.bar_miss
            bar = CountReading(
                _pad(with_misses(count_distribution(light_odds, n), miss), n),
                _pad(with_misses(count_distribution(dark_odds, n), miss), n),
            )
            # what is read under a hand is not to be trusted
            doubt, surely = cfg.settle.doubt, found.surely
            if surely and doubt > 0:
                top_r = tuple(_doubted(r, doubt) if f"top[{i}]" in surely else r for i, r in enumerate(top_r))
                bottom_r = tuple(
                    _doubted(r, doubt) if f"bottom[{i}]" in surely else r for i, r in enumerate(bottom_r)
                )
                if "bar" in surely:
                    bar = CountReading(_flattened(bar.light, doubt), _flattened(bar.dark, doubt))
            # the trays as read, unless out of view or under a hand: then what the board leaves
            if tray_read is not None and "off" not in unsettled:
                return top_r, bottom_r, bar, tray_read
            return top_r, bottom_r, bar, self._off(top_r + bottom_r, bar, n)

        top_r, bottom_r, bar, off = _timed(timings, "assemble", assemble)
        timings["total"] = sum(timings.values())
        debug = {
            "rectified": rect,
            "score": score,
            "tops": tops,
            "bottoms": bottoms,
            "bar": list(zip(bar_centres, bar_odds, strict=True)),
            "maps": maps,
            "unsettled": found.found,
        }
        return Observation(
            top_r,
            bottom_r,
            bar,
            off,
            settled=not unsettled,
            unsettled=unsettled,
            timings_ms=timings,
            debug=debug,
            glare=glare,
        )

    # -- helpers --------------------------------------------------------------------------------------
    def _consistent(self, line: Line, cols: F64) -> Line:
        """``line`` with its count probabilities weighed by colour (``cols``: (n, 3) Lab of its discs):
        a stack is one colour, so a disc much unlike the discs below it (a point's wide base, a die
        next to a checker) is unlikely to be one more checker of it; the line is cut before it."""
        return self._consistent_lines([line], [cols])[0]

    def _consistent_lines(self, lines: list[Line], cols: list[F64]) -> list[Line]:
        """``_consistent`` of every line of ``lines`` (``cols[i]``: (n_i, 3) Lab of line i's discs), the
        colour distances of all the lines worked out together (each line's numbers as on its own)."""
        cc = self.config.colour
        out = list(lines)
        todo = [i for i, c in enumerate(cols) if len(c) >= 2]
        if not todo:
            return out
        size = [len(cols[i]) for i in todo]
        x = np.zeros((len(todo), max(size), 3))
        for j, i in enumerate(todo):
            x[j, : size[j]] = cols[i]
        # each disc against the mean of the discs below it (rows past a line's end are not looked at)
        below = np.cumsum(x, axis=1)[:, :-1] / np.arange(1, x.shape[1])[None, :, None]
        far = np.linalg.norm(x[:, 1:] - below, axis=2) - cc.stack_spread
        steps = np.minimum(cc.stack_penalty_cap, cc.stack_penalty * np.maximum(far, 0.0))
        for j, i in enumerate(todo):
            step, line = steps[j, : size[j] - 1], lines[i]
            if not step.any():
                continue
            penalty = np.concatenate([[0.0, 0.0], np.cumsum(step)])  # penalty[n]: a stack of n of these
            strong = np.flatnonzero(step > 0.5 * cc.stack_penalty_cap)
            cut = int(strong[0]) + 1 if len(strong) else size[j]
            p = line.probabilities.copy()
            k = min(len(p), len(penalty))
            p[:k] *= np.exp(-penalty[:k])
            p[k:] *= np.exp(-penalty[-1])
            out[i] = Line(p / p.sum(), line.centres[:cut], line.scores[:cut])
        return out

    def _crossing_cuts(
        self, lines: list[Line], cut: list[Line], height: int
    ) -> tuple[list[int], NDArray[np.intp]]:
        """Columns where colour cut a line (``lines`` the top lines then the bottom lines, ``cut`` the
        same after ``_consistent_lines``) among discs past the column's middle -- a line that ran on
        into the other point's stack -- with the number of discs each of their two lines keeps (-1
        for the other line, to be found again): (columns, (2, len(columns)) numbers). A column whose
        two lines were both cut so is left as it is."""
        found: dict[int, list[int]] = {}
        for i, (line, kept) in enumerate(zip(lines, cut, strict=True)):
            if len(kept.centres) >= len(line.centres):
                continue
            side, col = divmod(i, POINTS_PER_ROW)
            lost = [y for _, y in line.centres[len(kept.centres) :]]
            if any(y > height / 2 if side == 0 else y < height / 2 for y in lost):
                found.setdefault(col, [-1, -1])[side] = len(kept.centres)
        cols = sorted(c for c, known in found.items() if min(known) < 0)
        return cols, np.array([found[c] for c in cols], dtype=np.intp).T.reshape(2, len(cols))

    @staticmethod
    def _samples(smooth: NDArray[np.float32], centres: tuple[tuple[float, float], ...]) -> F64:
        """(n, 3) Lab colours round ``centres`` from the box-blurred Lab image ``smooth``."""
        h, w = smooth.shape[:2]
        c = np.rint(np.asarray(centres, dtype=np.float64)).astype(np.intp)
        return np.asarray(smooth[np.clip(c[:, 1], 0, h - 1), np.clip(c[:, 0], 0, w - 1)], dtype=np.float64)

    def _both_sides(self, lines: list[Line], extras: list[F64]) -> bool:
        """Whether ``lines`` (with what lies on them in a second layer, ``extras``) hold more
        checkers, expected, than a lit-and-shaded split of one side's fifteen can leave the other
        side out of (``ColourConfig.own_colours``)."""
        cap = self.config.geometry.line_capacity
        total = 0.0
        for line, extra in zip(lines, extras, strict=True):
            q = line.probabilities
            total += float(np.dot(np.arange(len(q)), q))
            if len(extra) > 1:
                total += float(q[cap:].sum()) * float(np.dot(np.arange(len(extra)), extra))
        return total >= self.config.colour.own_colours

    def _combined(self, lines: list[Line], extras: list[F64]) -> F64:
        """For each line, the distribution of its length plus the second-layer count (the latter given
        the best line, and only for the lengths that fill the point's line: a shorter line holds
        nothing on top), with the count floor spread over every count up to ``max_count``:
        (len(lines), max_count + 1)."""
        n = self.config.max_count + 1
        p = np.zeros((len(lines), n))
        # the lines with nothing on top (most of them) all at once, the others one by one
        alone = [i for i, extra in enumerate(extras) if len(extra) == 1]
        if len({len(lines[i].probabilities) for i in alone}) == 1:
            q = np.array([lines[i].probabilities for i in alone])
            q *= np.array([extras[i][0] for i in alone])[:, None]
            q = q[:, :n]
            p[alone, : q.shape[1]] = q / q.sum(axis=1, keepdims=True)
        else:
            alone = []
        cap = self.config.geometry.line_capacity
        for i in sorted(set(range(len(lines))) - set(alone)):
            line, extra = lines[i], extras[i]
            if len(extra) == 1:
                q = line.probabilities * extra[0]
            else:
                # only a full line holds checkers on top: a shorter one is its own count
                q = np.zeros(len(line.probabilities) + len(extra) - 1)
                q[:cap] = line.probabilities[:cap]
                q[cap:] = np.convolve(line.probabilities[cap:], extra)
            q = q[:n]
            p[i, : len(q)] = q / q.sum()
        floor = self.config.count.count_floor
        p *= 1 - floor
        p += floor / n
        p /= p.sum(axis=1, keepdims=True)
        return p

    @staticmethod
    def _off(points: tuple[PointReading, ...], bar: CountReading, n: int) -> CountReading:
        """Borne-off counts by conservation: 15 a side, less what is on the board and the bar."""
        on = {"light": 0, "dark": 0}
        for r in points:
            s = r.most_likely()
            if s.colour is not None:
                on[s.colour] += s.count
        b = bar.most_likely()
        light = max(0, CHECKERS_PER_SIDE - on["light"] - b.light)
        dark = max(0, CHECKERS_PER_SIDE - on["dark"] - b.dark)
        pl, pd = np.zeros(n + 1), np.zeros(n + 1)
        pl[min(light, n)] = 1.0
        pd[min(dark, n)] = 1.0
        return CountReading(tuple(pl.tolist()), tuple(pd.tolist()), measured=False)
