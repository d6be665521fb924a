"""The board profile: everything calibration learns about one board under one camera, in one file.

A profile is versioned JSON (``Profile.save`` / ``Profile.load``)::

    {"version": 2,
     "image_size": [1280, 720],
     "corners": [[x, y], [x, y], [x, y], [x, y]],      # playing area: TL, TR, BR, BL (pixels)
     "corners_source": "auto" | "markers" | "manual",
     "corners_confidence": 0.97,
     "geometry": {"height": 0.8, "bar_width": 0.085, ...},   # nardy.vision.geometry.BoardGeometry
     "variant": "short" | "long",
     "start": [24 ints],                                  # the variant's start, white's numbering
     "orientation": {"home": "bottom-right", "white": "light"} | null,
     "orientation_source": "user" | "start" | null,
     "colours": {"light": MODEL, "dark": MODEL, "board": {"field": MODEL, ...}} | null,
     "intrinsics": {"matrix": 3x3, "distortion": [k1, k2, p1, p2, k3], "size": [w, h], "rms": px} | null,
     "markers": {"dictionary": "DICT_4X4_50", "ids": [...], "board_corners": [...]} | null,
     "created": "2026-11-29T15:10:47+0000"}

where ``MODEL`` is a colour model in Lab (OpenCV 8-bit scaling): ``{"mean": [L, a, b], "cov": 3x3,
"count": n}``. Version 1 is the minimal hand-written form (``image_size`` and ``corners`` only, plus
optionally ``variant``); it is read and migrated, every other field taking its default.

Reading never guesses: a missing, mistyped or impossible field raises ``ProfileError`` naming it
(``profile field 'corners' must be 4 points``), and a file from a newer version says so.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from nardy.calibration.orientation import Orientation, OrientationError
from nardy.rules.position import Position
from nardy.rules.variants import find_variant
from nardy.vision.geometry import BoardGeometry
from nardy.vision.rectify import Intrinsics

if TYPE_CHECKING:
    from nardy.vision.config import RecognizerConfig
    from nardy.vision.detect import Detector
    from nardy.vision.recognizer import Recognizer

PROFILE_VERSION = 2
"""The version ``save`` writes."""

CornersSource = Literal["auto", "markers", "manual"]
OrientationSource = Literal["user", "start"]
CORNER_SOURCES = ("auto", "markers", "manual")
ORIENTATION_SOURCES = ("user", "start")
BOARD_REGIONS = ("field", "points_even", "points_odd", "frame")
"""The board's colour models: the playing field, the points of even and odd index (index 0 of the top
row is even) and the frame."""


class ProfileError(ValueError):
    """A profile that cannot be read or built; the message names the field."""


# -- small value types -------------------------------------------------------------------------------
@dataclass(frozen=True)
class ColourModel:
    """A colour as a Gaussian in Lab (OpenCV 8-bit scaling: L, a, b all in 0..255)."""

    mean: tuple[float, float, float]
    """Mean Lab colour."""
    cov: tuple[tuple[float, float, float], ...]
    """3x3 covariance (Lab units squared)."""
    count: int = 0
    """How many pixels it was learned from."""

    @classmethod
    def fit(cls, lab: NDArray[np.floating], floor: float = 1.0) -> ColourModel:
        """Fit to samples ``lab`` (N, 3); ``floor`` (Lab units) is added to the variances so a flat
        colour still has a usable spread."""
        x = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
        if len(x) == 0:
            raise ProfileError("a colour model needs at least one sample")
        mean = x.mean(axis=0)
        cov = np.cov(x.T) if len(x) > 1 else np.zeros((3, 3))
        cov = cov + np.eye(3) * floor**2
        return cls(_triple(mean), tuple(_triple(r) for r in cov), len(x))

    @property
    def mean_array(self) -> NDArray[np.float64]:
        return np.asarray(self.mean, dtype=np.float64)

    def distance(self, lab: NDArray[np.floating]) -> NDArray[np.float64]:
        """Mahalanobis distance of each of ``lab`` (N, 3) to this colour: (N,) float64."""
        x = np.asarray(lab, dtype=np.float64).reshape(-1, 3) - self.mean_array
        inv = np.linalg.inv(np.asarray(self.cov, dtype=np.float64))
        return np.asarray(np.sqrt(np.maximum(np.einsum("ni,ij,nj->n", x, inv, x), 0.0)), dtype=np.float64)

    def to_json(self) -> dict[str, Any]:
        return {
            "mean": [round(v, 3) for v in self.mean],
            "cov": [[round(v, 3) for v in r] for r in self.cov],
            "count": self.count,
        }

    @classmethod
    def from_json(cls, data: Any, name: str) -> ColourModel:
        d = _mapping(data, name, {"mean", "cov", "count"})
        mean = _floats(d.get("mean"), f"{name}.mean", 3)
        cov_raw = d.get("cov")
        if not isinstance(cov_raw, list) or len(cov_raw) != 3:
            raise ProfileError(f"profile field '{name}.cov' must be a 3x3 matrix")
        cov = tuple(_triple(_floats(r, f"{name}.cov", 3)) for r in cov_raw)
        c = np.asarray(cov)
        if not np.allclose(c, c.T, atol=1e-3) or np.linalg.eigvalsh(c).min() <= 0:
            raise ProfileError(f"profile field '{name}.cov' must be symmetric positive definite")
        return cls(_triple(mean), cov, _int(d.get("count", 0), f"{name}.count", 0))


@dataclass(frozen=True)
class ColourModels:
    """The checker colours and the board's colours, learned from one frame of the start position."""

    light: ColourModel
    dark: ColourModel
    board: Mapping[str, ColourModel] = field(default_factory=dict)
    """Some of ``BOARD_REGIONS``."""

    def prototypes(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(light, dark) mean Lab colours: what ``nardy.vision``'s recognizer takes as ``colours``."""
        return self.light.mean_array, self.dark.mean_array

    def to_json(self) -> dict[str, Any]:
        return {
            "light": self.light.to_json(),
            "dark": self.dark.to_json(),
            "board": {k: v.to_json() for k, v in self.board.items()},
        }

    @classmethod
    def from_json(cls, data: Any) -> ColourModels:
        d = _mapping(data, "colours", {"light", "dark", "board"})
        for key in ("light", "dark"):
            if key not in d:
                raise ProfileError(f"profile field 'colours.{key}' is missing")
        board_raw = _mapping(d.get("board", {}), "colours.board", set(BOARD_REGIONS))
        board = {k: ColourModel.from_json(v, f"colours.board.{k}") for k, v in board_raw.items()}
        return cls(
            ColourModel.from_json(d["light"], "colours.light"),
            ColourModel.from_json(d["dark"], "colours.dark"),
            board,
        )


@dataclass(frozen=True, eq=False)
class LensCalibration:
    """A calibrated camera as the profile keeps it: ``nardy.vision``'s ``Intrinsics`` (the 3x3 matrix
    ``k`` and the OpenCV distortion coefficients ``dist``: k1, k2, p1, p2, k3...), the image ``size``
    (width, height) they belong to and the calibration's ``rms`` reprojection error (pixels).

    ``for_size`` gives the ``Intrinsics`` for frames of any resolution of the same sensor, the form the
    recognizer takes."""

    intrinsics: Intrinsics
    size: tuple[int, int]
    rms: float = 0.0

    def __post_init__(self) -> None:
        k = np.array(self.intrinsics.k, dtype=np.float64).reshape(3, 3)
        dist = np.array(self.intrinsics.dist, dtype=np.float64).reshape(-1)
        k.setflags(write=False)
        dist.setflags(write=False)
        object.__setattr__(self, "intrinsics", Intrinsics(k, dist))
        object.__setattr__(self, "size", (int(self.size[0]), int(self.size[1])))

    @classmethod
    def from_values(
        cls,
        matrix: ArrayLike,
        distortion: ArrayLike,
        size: tuple[int, int],
        rms: float = 0.0,
    ) -> LensCalibration:
        """From a 3x3 ``matrix`` and the ``distortion`` coefficients as plain numbers."""
        return cls(
            Intrinsics(np.asarray(matrix, dtype=np.float64), np.asarray(distortion, dtype=np.float64)),
            size,
            rms,
        )

    @property
    def k(self) -> NDArray[np.float64]:
        """The camera matrix (3, 3) at ``size``."""
        return self.intrinsics.k

    @property
    def distortion(self) -> tuple[float, ...]:
        """The distortion coefficients."""
        return tuple(float(v) for v in self.intrinsics.dist)

    def scaled(self, size: tuple[int, int]) -> LensCalibration:
        """The same lens at another resolution of the same sensor (same aspect ratio)."""
        if size == self.size:
            return self
        sx, sy = size[0] / self.size[0], size[1] / self.size[1]
        if abs(sx - sy) > 0.01 * max(sx, sy):
            raise ProfileError(
                f"intrinsics for {self.size[0]}x{self.size[1]} do not fit a "
                f"{size[0]}x{size[1]} image (another aspect ratio)"
            )
        k = self.k.copy()
        k[0] *= sx
        k[1] *= sy
        return LensCalibration(Intrinsics(k, self.intrinsics.dist.copy()), size, self.rms)

    def for_size(self, size: tuple[int, int]) -> Intrinsics:
        """``nardy.vision``'s ``Intrinsics`` for frames of ``size`` (width, height)."""
        return self.scaled(size).intrinsics

    def to_json(self) -> dict[str, Any]:
        return {
            "matrix": [[float(v) for v in row] for row in self.k],
            "distortion": list(self.distortion),
            "size": list(self.size),
            "rms": self.rms,
        }

    @classmethod
    def from_json(cls, data: Any) -> LensCalibration:
        d = _mapping(data, "intrinsics", {"matrix", "distortion", "size", "rms"})
        m = d.get("matrix")
        if not isinstance(m, list) or len(m) != 3:
            raise ProfileError("profile field 'intrinsics.matrix' must be a 3x3 matrix")
        matrix = tuple(_triple(_floats(r, "intrinsics.matrix", 3)) for r in m)
        if matrix[0][0] <= 0 or matrix[1][1] <= 0:
            raise ProfileError("profile field 'intrinsics.matrix' must have positive focal lengths")
        dist = d.get("distortion")
        if not isinstance(dist, list) or len(dist) not in (4, 5, 8, 12, 14):
            raise ProfileError("profile field 'intrinsics.distortion' must hold 4, 5, 8, 12 or 14 numbers")
        return cls.from_values(
            matrix,
            _floats(dist, "intrinsics.distortion", len(dist)),
            _size(d.get("size"), "intrinsics.size"),
            _float(d.get("rms", 0.0), "intrinsics.rms"),
        )


@dataclass(frozen=True)
class MarkerSet:
    """ArUco markers stuck on the board's frame: their ``dictionary`` (an OpenCV name), ``ids`` and, once
    learned, each marker's four corners in board units (``board_corners``, (len(ids), 4, 2))."""

    dictionary: str
    ids: tuple[int, ...]
    board_corners: tuple[tuple[tuple[float, float], ...], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "dictionary": self.dictionary,
            "ids": list(self.ids),
            "board_corners": [[list(p) for p in m] for m in self.board_corners],
        }

    @classmethod
    def from_json(cls, data: Any) -> MarkerSet:
        d = _mapping(data, "markers", {"dictionary", "ids", "board_corners"})
        name = d.get("dictionary")
        if not isinstance(name, str) or not name.startswith("DICT_"):
            raise ProfileError("profile field 'markers.dictionary' must name an ArUco dictionary (DICT_...)")
        ids_raw = d.get("ids")
        if not isinstance(ids_raw, list) or not ids_raw:
            raise ProfileError("profile field 'markers.ids' must be a non-empty list of marker ids")
        ids = tuple(_int(v, "markers.ids", 0) for v in ids_raw)
        corners_raw = d.get("board_corners", [])
        if not isinstance(corners_raw, list) or (corners_raw and len(corners_raw) != len(ids)):
            raise ProfileError("profile field 'markers.board_corners' must hold 4 corners for each id")
        corners = []
        for m in corners_raw:
            if not isinstance(m, list) or len(m) != 4:
                raise ProfileError("profile field 'markers.board_corners' must hold 4 corners for each id")
            corners.append(tuple(_pair(p, "markers.board_corners") for p in m))
        return cls(name, ids, tuple(corners))


# -- the profile -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Profile:
    """One board under one camera. Build it with the calibration functions, then ``save`` it."""

    corners: tuple[tuple[float, float], ...]
    """The playing area's image corners (x, y) in pixels: top-left, top-right, bottom-right, bottom-left."""
    image_size: tuple[int, int]
    """(width, height) of the frames the corners belong to."""
    geometry: BoardGeometry = field(default_factory=BoardGeometry)
    """The board's proportions (bar width, tray side, point length, checker size)."""
    variant: str = "short"
    """The game played on it: ``short`` or ``long``."""
    start: tuple[int, ...] = ()
    """The variant's start position in white's numbering (filled in from ``variant`` when empty)."""
    orientation: Orientation | None = None
    """How the board's rows and colours map to white's numbering, once known."""
    orientation_source: OrientationSource | None = None
    """``user`` (told) or ``start`` (inferred from a frame of the start position)."""
    corners_source: CornersSource = "manual"
    """How the corners were found."""
    corners_confidence: float = 1.0
    """How sure the finder was (1 for hand-placed corners)."""
    colours: ColourModels | None = None
    """Colour models learned from the start position."""
    intrinsics: LensCalibration | None = None
    """The camera's lens, when calibrated (``intrinsics.for_size(size)`` for the recognizer)."""
    markers: MarkerSet | None = None
    """ArUco markers on the frame, when used."""
    created: str = ""
    """When the profile was made (ISO 8601)."""

    def __post_init__(self) -> None:
        corners = np.asarray(self.corners, dtype=np.float64)
        if corners.shape != (4, 2) or not np.all(np.isfinite(corners)):
            raise ProfileError("profile field 'corners' must be 4 points")
        object.__setattr__(self, "corners", tuple((float(x), float(y)) for x, y in corners))
        w, h = self.image_size
        object.__setattr__(self, "image_size", (int(w), int(h)))
        if int(w) <= 0 or int(h) <= 0:
            raise ProfileError(f"profile field 'image_size' must be positive, not {self.image_size}")
        if not _convex_clockwise(corners):
            raise ProfileError(
                "profile field 'corners' must go round a convex area clockwise "
                "(top-left, top-right, bottom-right, bottom-left)"
            )
        try:
            name = find_variant(self.variant).name
        except ValueError as exc:
            raise ProfileError(f"profile field 'variant': {exc}") from None
        object.__setattr__(self, "variant", name)
        if not self.start:
            object.__setattr__(self, "start", Position.initial(name).points)
        try:
            Position(name, tuple(self.start))
        except ValueError as exc:
            raise ProfileError(f"profile field 'start': {exc}") from None
        if self.corners_source not in CORNER_SOURCES:
            raise ProfileError(f"profile field 'corners_source' must be one of {', '.join(CORNER_SOURCES)}")
        if self.orientation_source is not None and self.orientation_source not in ORIENTATION_SOURCES:
            raise ProfileError(
                f"profile field 'orientation_source' must be one of {', '.join(ORIENTATION_SOURCES)}"
            )
        if not 0.0 <= self.corners_confidence <= 1.0:
            raise ProfileError("profile field 'corners_confidence' must be in 0..1")

    # -- arrays and derived values ------------------------------------------------------------------------
    @property
    def corner_array(self) -> NDArray[np.float64]:
        """``corners`` as a (4, 2) float64 array."""
        return np.asarray(self.corners, dtype=np.float64)

    def corners_for(self, size: tuple[int, int]) -> NDArray[np.float64]:
        """The corners for frames of another resolution of the same camera (scaled)."""
        sx, sy = size[0] / self.image_size[0], size[1] / self.image_size[1]
        return self.corner_array * [sx, sy]

    def fits(self, size: tuple[int, int]) -> bool:
        """Whether frames of ``size`` (width, height) are of the shape this profile was made on, so
        its corners can be scaled to them (``corners_for``)."""
        return same_shape(size, self.image_size)

    def recognizer(
        self,
        config: RecognizerConfig | None = None,
        frame_size: tuple[int, int] | None = None,
        corners: NDArray[np.floating] | None = None,
        detector: Detector | None = None,
    ) -> Recognizer:
        """A recognizer for this board under this camera: the corners (or ``corners`` (4, 2), given
        for that frame size) and the board's geometry, the lens when calibrated, and the checker
        colours learned from the start position, for frames of ``frame_size`` (default
        ``image_size``; corners and lens are scaled to it), with ``detector`` when one is loaded
        already. Raises ``ProfileError`` when the lens was calibrated at another aspect ratio."""
        from nardy.vision.config import RecognizerConfig
        from nardy.vision.recognizer import Recognizer

        size = frame_size or self.image_size
        cfg = dataclasses.replace(config or RecognizerConfig(), geometry=self.geometry)
        return Recognizer(
            cfg,
            self.corners_for(size) if corners is None else np.asarray(corners, dtype=np.float64),
            intrinsics=None if self.intrinsics is None else self.intrinsics.for_size(size),
            colours=None if self.colours is None else self.colours.prototypes(),
            detector=detector,
        )

    @property
    def start_position(self) -> Position:
        return Position(self.variant, self.start)

    def replace(self, **changes: Any) -> Profile:
        """A copy with some fields changed (validated again)."""
        return dataclasses.replace(self, **changes)

    # -- JSON ---------------------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "version": PROFILE_VERSION,
            "image_size": list(self.image_size),
            "corners": [[round(x, 3), round(y, 3)] for x, y in self.corners],
            "corners_source": self.corners_source,
            "corners_confidence": round(self.corners_confidence, 4),
            "geometry": dataclasses.asdict(self.geometry),
            "variant": self.variant,
            "start": list(self.start),
            "orientation": None if self.orientation is None else self.orientation.to_json(),
            "orientation_source": self.orientation_source,
            "colours": None if self.colours is None else self.colours.to_json(),
            "intrinsics": None if self.intrinsics is None else self.intrinsics.to_json(),
            "markers": None if self.markers is None else self.markers.to_json(),
            "created": self.created,
        }

    @classmethod
    def from_json(cls, data: Any) -> Profile:
        """Read any supported version; raises ``ProfileError`` naming the field that is wrong."""
        if not isinstance(data, dict):
            raise ProfileError("a profile must be a JSON object")
        if "version" not in data:
            raise ProfileError("profile field 'version' is missing")
        version = data["version"]
        if isinstance(version, bool) or not isinstance(version, int):
            raise ProfileError(f"profile field 'version' must be a whole number, not {version!r}")
        if version > PROFILE_VERSION:
            raise ProfileError(
                f"profile field 'version' is {version}: written by a newer nardy "
                f"(this one reads up to {PROFILE_VERSION})"
            )
        if version < 1:
            raise ProfileError(f"profile field 'version' is {version}: no such profile version")
        d = dict(data)
        while d["version"] < PROFILE_VERSION:
            d = MIGRATIONS[d["version"]](d)
        unknown = set(d) - _FIELDS
        if unknown:
            raise ProfileError(f"profile has unknown field(s): {', '.join(sorted(unknown))}")
        for key in ("corners", "image_size"):
            if key not in d:
                raise ProfileError(f"profile field '{key}' is missing")
        corners_raw = d["corners"]
        if not isinstance(corners_raw, list) or len(corners_raw) != 4:
            raise ProfileError("profile field 'corners' must be 4 points")
        corners = tuple(_pair(p, "corners") for p in corners_raw)
        orientation = None
        if d.get("orientation") is not None:
            try:
                orientation = Orientation.from_json(d["orientation"])
            except OrientationError as exc:
                raise ProfileError(f"profile field 'orientation': {exc}") from None
        start_raw = d.get("start", [])
        if not isinstance(start_raw, list) or (start_raw and len(start_raw) != 24):
            raise ProfileError("profile field 'start' must be 24 whole numbers")
        start = tuple(_int(v, "start") for v in start_raw)
        variant = d.get("variant", "short")
        if not isinstance(variant, str):
            raise ProfileError(f"profile field 'variant' must be a text, not {variant!r}")
        created = d.get("created", "")
        if not isinstance(created, str):
            raise ProfileError("profile field 'created' must be a text")

        def optional(key: str, read: Callable[[Any], Any]) -> Any:
            return None if d.get(key) is None else read(d[key])

        return cls(
            corners=corners,
            image_size=_size(d["image_size"], "image_size"),
            geometry=_geometry(d.get("geometry", {})),
            variant=variant,
            start=start,
            orientation=orientation,
            orientation_source=cast(
                OrientationSource | None,
                _choice(d.get("orientation_source"), "orientation_source", ORIENTATION_SOURCES, True),
            ),
            corners_source=cast(
                CornersSource,
                _choice(d.get("corners_source", "manual"), "corners_source", CORNER_SOURCES, False),
            ),
            corners_confidence=_float(d.get("corners_confidence", 1.0), "corners_confidence"),
            colours=optional("colours", ColourModels.from_json),
            intrinsics=optional("intrinsics", LensCalibration.from_json),
            markers=optional("markers", MarkerSet.from_json),
            created=created,
        )

    def save(self, path: str | Path) -> Path:
        """Write the profile as JSON (atomically: a crash leaves the old file)."""
        p = Path(path)
        record = self.to_json()
        if not record["created"]:
            record["created"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        tmp.replace(p)
        return p

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        """Read a profile file; ``ProfileError`` says what is wrong with it."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as exc:
            raise ProfileError(f"cannot read profile {p}: {exc.strerror}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ProfileError(f"profile {p} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
        try:
            return cls.from_json(data)
        except ProfileError as exc:
            raise ProfileError(f"{p}: {exc}") from None


def same_shape(a: tuple[int, int], b: tuple[int, int], tolerance: float = 0.01) -> bool:
    """Whether frame sizes ``a`` and ``b`` (width, height) are one shape at two resolutions: their
    scale factors across and down within ``tolerance`` (relative) of each other."""
    sx, sy = a[0] / b[0], a[1] / b[1]
    return abs(sx - sy) <= tolerance * max(sx, sy)


def _migrate_v1(d: dict[str, Any]) -> dict[str, Any]:
    """Version 1 (hand-written: image_size, corners, optionally variant) -> version 2."""
    allowed = {"version", "image_size", "corners", "variant"}
    unknown = set(d) - allowed
    if unknown:
        raise ProfileError(f"version 1 profile has unknown field(s): {', '.join(sorted(unknown))}")
    out = dict(d)
    out["version"] = 2
    out["corners_source"] = "manual"
    return out


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _migrate_v1}
"""``MIGRATIONS[v]`` turns a version ``v`` record into a version ``v + 1`` one."""

_FIELDS = {
    "version",
    "image_size",
    "corners",
    "corners_source",
    "corners_confidence",
    "geometry",
    "variant",
    "start",
    "orientation",
    "orientation_source",
    "colours",
    "intrinsics",
    "markers",
    "created",
}


# -- field readers ------------------------------------------------------------------------------------------
def _mapping(data: Any, name: str, allowed: set[str]) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ProfileError(f"profile field '{name}' must be an object")
    unknown = set(data) - allowed
    if unknown:
        raise ProfileError(f"profile field '{name}' has unknown key(s): {', '.join(sorted(unknown))}")
    return data


def _float(v: Any, name: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise ProfileError(f"profile field '{name}' must be a number, not {v!r}")
    return float(v)


def _int(v: Any, name: str, minimum: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ProfileError(f"profile field '{name}' must be whole numbers, not {v!r}")
    if minimum is not None and v < minimum:
        raise ProfileError(f"profile field '{name}' must be at least {minimum}, not {v}")
    return v


def _floats(v: Any, name: str, n: int) -> tuple[float, ...]:
    if not isinstance(v, list) or len(v) != n:
        raise ProfileError(f"profile field '{name}' must be {n} numbers")
    return tuple(_float(x, name) for x in v)


def _triple(v: Sequence[float] | NDArray[np.floating]) -> tuple[float, float, float]:
    return float(v[0]), float(v[1]), float(v[2])


def _pair(v: Any, name: str) -> tuple[float, float]:
    if not isinstance(v, list) or len(v) != 2:
        raise ProfileError(f"profile field '{name}' must be 4 points")
    return _float(v[0], name), _float(v[1], name)


def _size(v: Any, name: str) -> tuple[int, int]:
    if not isinstance(v, list) or len(v) != 2:
        raise ProfileError(f"profile field '{name}' must be [width, height]")
    w, h = _int(v[0], name, 1), _int(v[1], name, 1)
    return w, h


def _choice(v: Any, name: str, choices: Sequence[str], nullable: bool) -> str | None:
    if v is None and nullable:
        return None
    if v not in choices:
        raise ProfileError(f"profile field '{name}' must be one of {', '.join(choices)}, not {v!r}")
    return str(v)


def _geometry(data: Any) -> BoardGeometry:
    names = {f.name: f for f in dataclasses.fields(BoardGeometry)}
    d = _mapping(data, "geometry", set(names))
    values: dict[str, Any] = {}
    for key, value in d.items():
        if key == "tray_side":
            values[key] = _choice(value, "geometry.tray_side", ("left", "right"), False)
        else:
            values[key] = _float(value, f"geometry.{key}")
    try:
        return BoardGeometry(**values)
    except ValueError as exc:
        raise ProfileError(f"profile field 'geometry': {exc}") from None


def _convex_clockwise(corners: NDArray[np.float64]) -> bool:
    """True when the 4 image points go round a convex area clockwise on screen (y down)."""
    crosses = []
    for i in range(4):
        a, b, c = corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4]
        u, v = b - a, c - b
        crosses.append(u[0] * v[1] - u[1] * v[0])
    return all(c > 0 for c in crosses)
