"""Screenshots of every dashboard page for docs/screenshots/ (not a test: run it by hand).

    python -m tests.web.screenshots [--out docs/screenshots]

A real referee, the real hint engine and match store, and a camera played by the synthetic
renderer (``nardy.vision.scene``): the board it draws is the referee's position, so the camera
picture, the overlay and the calibration page show a plausible table.
"""

from __future__ import annotations

import argparse
import re
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from nardy.hints.engine import engine_for
from nardy.referee.recorder import Recorder
from nardy.referee.session import Referee
from nardy.referee.store import MatchStore
from nardy.rules import Position
from nardy.vision.layout import EMPTY, BoardLayout, Counts, Stack
from nardy.vision.render import Effects, Lighting
from nardy.vision.scene import CameraSpec, Scene
from nardy.vision.style import random_style
from nardy.web.app import create_app, serve_in_thread
from nardy.web.archive import StoreArchive
from nardy.web.services import (
    CameraFrame,
    CornerGuess,
    Corners,
    Picture,
    Rectified,
    SeenChecker,
    Services,
    Settings,
)
from tests.web.conftest import TOKEN, make_referee
from tests.web.fakes import jpeg

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]


def layout_of(position: Position) -> BoardLayout:
    """The camera's view of a position: white is the light colour, white's 24 at the top right."""

    def stack(p: int) -> Stack:
        n = position.points[p - 1]
        return EMPTY if n == 0 else Stack("light" if n > 0 else "dark", abs(n))

    top = tuple(stack(13 + i) for i in range(12))
    bottom = tuple(stack(12 - i) for i in range(12))
    return BoardLayout(
        top,
        bottom,
        Counts(position.bar_white, position.bar_black),
        Counts(position.off_white, position.off_black),
    )


class SyntheticTable:
    """A rendered camera over the referee's board, and calibration on its pictures."""

    def __init__(self, referee: Referee) -> None:
        rng = np.random.default_rng(7)
        self.scene = Scene(
            random_style(rng, "painted", "black_white"),
            CameraSpec(tilt=18.0, azimuth=4.0, roll=1.5, fov=55.0, fill=0.8),
            Lighting(gain=1.0, vignette=0.15),
            Effects(blur=0.0, noise=0.0, jpeg_quality=95),
            size=(1280, 720),
            seed=7,
        )
        self.referee = referee
        self._lock = threading.Lock()
        self._key: str | None = None
        self._frame: CameraFrame | None = None
        self._seq = 0
        self._saved: dict[str, Corners] = {}
        self._current: str | None = None

    def _render(self) -> tuple[np.ndarray[Any, Any], list[tuple[float, float, str]]]:
        position = self.referee.state()["position"]
        sample = self.scene.render(layout_of(Position.from_json(position)))
        seen: list[tuple[float, float, str]] = []
        for c in sample.checkers:
            ((x, y),) = self.scene.project(
                np.array([[c.x, c.y]]), height=self.scene.geometry.checker_height * (c.level + 1)
            )
            seen.append((float(x), float(y), c.colour))
        return sample.image, seen

    def latest_frame(self) -> CameraFrame | None:
        with self._lock:
            key = self.referee.position.json_text()
            if key != self._key:
                image, seen = self._render()
                overlay = image.copy()
                quad = np.round(self.scene.corners()).astype(np.int32)
                cv2.polylines(overlay, [quad], True, (0, 215, 255), 3, cv2.LINE_AA)
                for x, y, colour in seen:
                    cv2.circle(
                        overlay,
                        (int(x), int(y)),
                        13,
                        (255, 214, 77) if colour == "light" else (209, 90, 255),
                        2,
                    )
                self._seq += 1
                self._frame = CameraFrame(
                    jpeg(image), jpeg(overlay), self._seq, image.shape[1], image.shape[0]
                )
                self._key = key
            return self._frame

    # calibration
    def snapshot(self) -> Picture:
        frame = self.latest_frame()
        assert frame is not None
        return Picture(frame.jpeg, frame.width, frame.height)

    def auto_corners(self) -> CornerGuess | None:
        c = self.scene.corners()
        return CornerGuess(tuple((float(x), float(y)) for x, y in c), 0.97)  # type: ignore[arg-type]

    def rectify(self, corners: Corners) -> Rectified:
        image, seen = self._render()
        w, h = 800, int(800 * self.scene.geometry.height)
        m = cv2.getPerspectiveTransform(
            np.array(corners, np.float32), np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        )
        board = cv2.warpPerspective(image, m, (w, h))
        found = []
        for x, y, colour in seen:
            ((px, py),) = cv2.perspectiveTransform(np.array([[[x, y]]], np.float64), m)[0:1, 0]
            found.append(
                SeenChecker(float(px), float(py), 0.47 * w / 12 * (1 - self.scene.geometry.bar_width), colour)
            )
        return Rectified(Picture(jpeg(np.asarray(board, np.uint8)), w, h), tuple(found), "synthetic camera")

    def learn_colours(self, corners: Corners) -> Mapping[str, Any]:
        return {"light": "#ece6d6", "dark": "#1e1a18", "checkers": 30}

    def save_profile(self, name: str, corners: Corners) -> str:
        self._saved[name] = corners
        self._current = name
        return f"profiles/{name}.json"

    def profiles(self) -> Sequence[str]:
        return sorted(self._saved)

    def current_profile(self) -> str | None:
        return self._current

    def use_profile(self, name: str) -> None:
        self._current = name


def play_opening(referee: Referee, plays: Sequence[tuple[tuple[int, int], str]]) -> None:
    for dice, play in plays:
        referee.on_roll(dice, "e-dice")
        if play:
            after = referee.position.apply(play)
            referee.command("correct", position=after.to_json())


def main(argv: Sequence[str] | None = None) -> int:
    from playwright.sync_api import expect, sync_playwright

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="nardy-shots-"))
    store = MatchStore.open(tmp / "matches.db")

    def hints(variant: str) -> Any:
        return engine_for(variant, prefer="own")

    # a short-nardy match in training mode, recorded
    short = make_referee("short", length=5, white="Anna", black="Boris")
    recorder = Recorder(store, short)
    table = SyntheticTable(short)
    play_opening(short, [((3, 1), "8/5 6/5"), ((6, 4), "24/18 13/9"), ((5, 2), "13/8 13/11"), ((4, 4), "")])
    short.on_dice_event({"type": "connected", "device": "e-dice hub"})
    short.on_dice_event({"type": "battery", "pct": 82})
    short.camera.update(ok=True, message="")
    app = create_app(
        Services(
            short,
            camera=table,
            archive=StoreArchive(store),
            hints=hints,
            calibration=table,
            settings=Settings(mode="training", token=TOKEN, data_dir=tmp),
        )
    )
    handle = serve_in_thread(app)

    # a long-nardy game with an illegal play, in referee mode
    long = make_referee("long", length=3, white="Vera", black="Timur")
    play_opening(long, [((6, 5), "24/13"), ((4, 3), "24/17")])
    long.on_roll((5, 3), "e-dice")
    bad = long.position.apply("24/19 24/21")
    long.on_dice_event({"type": "connected", "device": "e-dice hub"})
    long.on_dice_event({"type": "battery", "pct": 64})
    long.camera.update(ok=True, message="")
    app2 = create_app(Services(long, settings=Settings(mode="referee", token=TOKEN)))
    handle2 = serve_in_thread(app2)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
            page = browser.new_page(viewport={"width": 1920, "height": 1080})

            # live, training mode, hovering the best play
            page.goto(handle.link())
            expect(page.locator("body")).to_have_attribute("data-server", "live")
            expect(page.locator("#hint-engine")).to_contain_text("own short")
            page.locator("#plays li.best").hover()
            page.screenshot(path=out / "live-training.png")
            page.locator("#camera-box img").scroll_into_view_if_needed()
            expect(page.locator("#camera-box img")).to_have_attribute("src", re.compile("^blob:"))
            page.mouse.move(5, 5)
            page.screenshot(path=out / "live-camera.png")

            # live, referee mode, an illegal play: what the players see (a viewer's screen)
            viewer = browser.new_page(viewport={"width": 1920, "height": 1080})
            viewer.goto(handle2.url)
            expect(viewer.locator("body")).to_have_attribute("data-server", "live")
            long.command("correct", position=bad.to_json())
            expect(viewer.locator(".alert[data-code='illegal-play']")).to_be_visible()
            viewer.screenshot(path=out / "live-illegal-play.png")

            phone = browser.new_page(viewport={"width": 430, "height": 932})
            phone.goto(handle2.url)
            expect(phone.locator("body")).to_have_attribute("data-server", "live")
            phone.screenshot(path=out / "live-phone.png")

            # calibration (a smaller window: the pictures are photographs and make large files)
            page.set_viewport_size({"width": 1366, "height": 900})
            page.goto(f"{handle.url}calibrate")
            page.get_by_test_id("cal-snapshot").click()
            expect(page.locator("#cal-image image")).to_have_count(1)
            page.get_by_test_id("cal-auto").click()
            expect(page.locator("body")).to_have_attribute("data-corners", "4")
            page.get_by_test_id("cal-preview").click()
            expect(page.locator("#cal-rectified circle").first).to_be_visible()
            page.screenshot(path=out / "calibrate.png", full_page=True)

            # history
            page.set_viewport_size({"width": 1920, "height": 1080})
            short.on_roll((2, 1), "e-dice")
            page.goto(f"{handle.url}history?match=1&game=0&move=3")
            expect(page.get_by_test_id("hist-caption")).to_contain_text("3.")
            expect(page.get_by_test_id("hist-analysis")).to_have_attribute("data-state", "done")
            page.screenshot(path=out / "history.png")
            browser.close()
    finally:
        handle.stop()
        handle2.stop()
        recorder.close()
        store.close()
    for shot in sorted(out.glob("*.png")):
        print(shot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
