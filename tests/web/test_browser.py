"""End to end in a real headless Chromium against a real server on 127.0.0.1.

Every wait is on a page condition (Playwright's ``expect``), never a sleep. Errors in the page
(JavaScript exceptions, Content-Security-Policy violations) fail the test.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

from nardy.hints import engine_for
from nardy.referee.recorder import Recorder
from nardy.referee.session import Referee
from nardy.referee.store import MatchStore
from nardy.rules import Position
from nardy.web.app import ServerHandle, close_app, create_app, dashboard_of, serve_in_thread
from nardy.web.archive import StoreArchive
from nardy.web.services import Services, Settings
from tests.web.conftest import TOKEN, Clock, Table, make_referee, record_a_blunder
from tests.web.fakes import BOARD_CORNERS, FakeCalibration, FakeHints

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium at /usr/bin/chromium (.ci/run installs it)"
    ),
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(8000)
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))

    def console(message: ConsoleMessage) -> None:
        # a refused command logs "Failed to load resource" (the test may want that); anything else is a bug
        if message.type == "error" and "Failed to load resource" not in message.text:
            problems.append(f"console: {message.text}")

    page.on("console", console)
    yield page
    context.close()
    assert not problems, problems


Serve = Callable[..., tuple[ServerHandle, Referee, Table]]


@pytest.fixture
def serve() -> Iterator[Serve]:
    handles: list[ServerHandle] = []

    def start(
        variant: str = "short", mode: str = "training", **parts: Any
    ) -> tuple[ServerHandle, Referee, Table]:
        clock = Clock()
        referee = parts.pop("referee", None) or make_referee(
            variant, clock, length=5, white="Anna", black="Boris"
        )
        tuning = parts.pop("settings", {})
        settings = Settings(mode=mode, token=TOKEN, **tuning)  # type: ignore[arg-type]
        app = create_app(Services(referee, settings=settings, **parts))
        handle = serve_in_thread(app, "127.0.0.1", 0)
        handles.append(handle)
        return handle, referee, Table(referee, clock)

    yield start
    for handle in handles:
        handle.stop()


def live(page: Page) -> None:
    expect(page.locator("body")).to_have_attribute("data-server", "live")


# ================================================================================ the live page
def test_the_live_page_follows_the_referee(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("short")
    page.goto(handle.url)
    live(page)
    expect(page.get_by_test_id("turn")).to_contain_text("Opening throw")
    expect(page.get_by_test_id("controls")).to_be_hidden()  # a viewer
    start = Position.initial("short")
    table.show(start)
    table.roll(3, 1)
    expect(page.get_by_test_id("dice")).to_have_attribute("data-values", "3-1")
    expect(page.get_by_test_id("turn")).to_contain_text("White to play 3-1")
    table.show(start.apply("8/5 6/5"))
    expect(page.get_by_test_id("turn-status")).to_contain_text("played 8/5 6/5")
    expect(page.locator("#board g.stack[data-point='5']")).to_have_attribute("data-count", "2")
    expect(page.locator("#board g.stack[data-point='8']")).to_have_attribute("data-count", "2")
    expect(page.locator("#board [data-number-of='1']")).to_have_text("1")  # white's numbering
    table.roll(6, 4)
    expect(page.get_by_test_id("turn")).to_contain_text("Black to play 6-4")
    expect(page.get_by_test_id("moves").locator("li").first).to_contain_text("8/5 6/5")
    expect(page.locator("#board [data-number-of='1']")).to_have_text("24")  # now black's numbering
    expect(page.locator("body")).to_have_attribute("data-version", str(referee.bus.seq))


def test_an_illegal_play_raises_the_alert_and_it_clears(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("long")
    page.goto(handle.url)
    live(page)
    start = Position.initial("long")
    table.show(start)
    table.roll(6, 5)
    table.show(start.apply("24/18 24/19"))
    alert = page.locator(".alert[data-code='illegal-play']")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("moved 2 checkers from the head")
    expect(alert).to_have_class("alert error")
    points = referee.alerts["illegal-play"].points
    assert points
    for p in points:  # the offending checkers are marked on the board
        expect(page.locator(f"#board .highlight.alert[data-highlight='{p}']")).to_have_count(1)
    expect(page.get_by_test_id("turn")).to_have_class("turn-banner status-illegal")
    table.show(start)  # taken back
    expect(page.get_by_test_id("alerts")).to_be_hidden()
    expect(page.locator("#board .highlight.alert")).to_have_count(0)
    table.show(start.apply("24/13"))
    expect(page.get_by_test_id("turn-status")).to_contain_text("played 24/13")


def test_camera_and_dice_alerts_show_in_the_banner_and_the_status_strip(page: Page, serve: Serve) -> None:
    handle, referee, _ = serve("short")
    page.goto(handle.url)
    live(page)
    referee.report_alert("camera-moved", "warning", "the camera moved: check the corners")
    referee.on_dice_event({"type": "disconnected"})
    expect(page.locator(".alert[data-code='camera-moved']")).to_contain_text("Camera moved")
    expect(page.locator(".alert[data-code='dice-disconnected']")).to_be_visible()
    expect(page.locator("#status-dice")).to_have_text("E-dice: DISCONNECTED")
    referee.on_dice_event({"type": "connected", "device": "hub-7"})
    referee.on_dice_event({"type": "battery", "pct": 15})
    referee.clear_alert("camera-moved")
    expect(page.locator("#status-dice")).to_have_text("E-dice: connected (hub-7) · battery 15%")
    expect(page.get_by_test_id("alerts")).to_be_hidden()


def test_manual_dice_entry_by_keyboard(page: Page, serve: Serve) -> None:
    handle, referee, _ = serve("short")
    page.goto(handle.link())
    live(page)
    expect(page.locator("body")).to_have_attribute("data-authorized", "yes")
    expect(page.get_by_test_id("dice-entry")).to_be_visible()
    page.keyboard.press("5")
    expect(page.get_by_test_id("dice-pending")).to_have_text("5 – ?")
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("dice-pending")).to_have_text("")
    page.keyboard.press("3")
    page.keyboard.press("1")
    expect(page.get_by_test_id("dice")).to_have_attribute("data-values", "3-1")
    expect(page.get_by_test_id("turn")).to_contain_text("White to play 3-1")
    assert referee.turn is not None and referee.turn.source == "manual"
    page.keyboard.press("6")
    page.keyboard.press("6")  # white has not played yet: the referee ignores the throw and says so
    expect(page.locator(".alert[data-code='dice-out-of-turn']")).to_contain_text("out of turn")
    assert referee.turn.roll.text() == "3-1"


def test_a_viewer_cannot_enter_dice(page: Page, serve: Serve) -> None:
    handle, referee, _ = serve("short")
    page.goto(f"{handle.url}?token=wrong-token")
    live(page)
    expect(page.locator("#toast")).to_contain_text("access token in that link is wrong")
    page.keyboard.press("3")
    page.keyboard.press("1")
    expect(page.get_by_test_id("dice-entry")).to_be_hidden()
    assert referee.turn is None and referee.bus.seq == int(
        page.locator("body").get_attribute("data-version") or 0
    )


def test_unlocking_with_the_token_in_the_dialog(page: Page, serve: Serve) -> None:
    handle, referee, _ = serve("short")
    page.goto(handle.url)
    live(page)
    page.get_by_test_id("lock").click()
    page.locator("#unlock-token").fill("not it")
    page.locator("#unlock-form button[type=submit]").click()
    expect(page.locator("#unlock-error")).to_have_text("that is not the access token")
    page.locator("#unlock-token").fill(TOKEN)
    page.locator("#unlock-form button[type=submit]").click()
    expect(page.get_by_test_id("controls")).to_be_visible()
    page.locator("#die-a button[data-value='4']").click()
    page.locator("#die-b button[data-value='2']").click()
    expect(page.get_by_test_id("dice")).to_have_attribute("data-values", "4-2")


def test_a_page_opened_late_gets_the_current_state(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("short")
    start = Position.initial("short")
    table.show(start)
    table.roll(3, 1)
    table.show(start.apply("8/5 6/5"))
    table.roll(6, 4)
    referee.report_alert("camera-moved", "warning", "the camera moved")
    page.goto(handle.url)
    expect(page.get_by_test_id("moves").locator("li").first).to_contain_text("8/5 6/5")
    expect(page.get_by_test_id("turn")).to_contain_text("Black to play 6-4")
    expect(page.locator(".alert[data-code='camera-moved']")).to_be_visible()
    live(page)
    expect(page.locator("body")).to_have_attribute("data-version", str(referee.bus.seq))
    referee.clear_alert("camera-moved")
    expect(page.get_by_test_id("alerts")).to_be_hidden()


def test_the_page_reconnects_when_its_stream_is_dropped(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("short")
    page.goto(handle.url)
    live(page)
    dashboard_of(handle.app).broadcaster.drop_all()  # as if this viewer fell behind
    table.roll(5, 2)  # happens while the page is reconnecting
    expect(page.get_by_test_id("dice")).to_have_attribute("data-values", "5-2")
    live(page)
    table.show(Position.initial("short").apply("13/8 13/11"))
    expect(page.get_by_test_id("turn-status")).to_contain_text("played 13/11 13/8")


def test_a_silently_dead_stream_is_noticed_and_resynced(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("short", settings={"watchdog_seconds": 1.0})
    page.goto(handle.url)
    live(page)
    broadcaster = dashboard_of(handle.app).broadcaster
    with broadcaster._lock:  # the connection stays open but nothing reaches the page any more
        orphans = list(broadcaster._viewers)
        broadcaster._viewers.clear()
    try:
        table.roll(4, 1)
        expect(page.get_by_test_id("dice")).to_have_attribute("data-values", "4-1")
        expect(page).to_have_title("White to play 4-1 — nardy")
    finally:
        for viewer in orphans:
            viewer.close()


# ================================================================================ hints and controls
def test_legal_plays_are_previewed_on_the_board_when_hovered(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("short", hints=FakeHints())
    page.goto(handle.url)
    live(page)
    table.roll(3, 1)
    row = page.locator("#plays li[data-play='8/5 6/5']")
    expect(row).to_be_visible()
    expect(page.locator("#hint-engine")).to_have_text("(fake 0-ply)")
    expect(page.locator("#plays li.best")).to_have_count(1)
    row.hover()
    for p in (8, 6):
        expect(page.locator(f"#board .highlight.from[data-highlight='{p}']")).to_have_count(1)
    expect(page.locator("#board .highlight.to[data-highlight='5']")).to_have_count(1)
    expect(page.locator("#board g.stack[data-point='5']")).to_have_attribute("data-count", "2")
    page.get_by_test_id("board").hover(position={"x": 5, "y": 5})
    expect(page.locator("#board .highlight")).to_have_count(0)


def test_referee_mode_shows_no_plays(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("short", mode="referee", hints=FakeHints())
    page.goto(handle.link())
    live(page)
    table.roll(3, 1)
    expect(page.get_by_test_id("turn")).to_contain_text("White to play 3-1")
    expect(page.get_by_test_id("plays")).to_be_hidden()
    page.get_by_test_id("mode-button").click()
    expect(page.get_by_test_id("mode")).to_have_text("training mode")
    expect(page.get_by_test_id("plays")).to_be_visible()


def test_correcting_a_misread_board_by_editing_it(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("short")
    page.goto(handle.link())
    live(page)
    table.roll(3, 1)
    expect(page.get_by_test_id("turn")).to_contain_text("White to play 3-1")
    page.get_by_test_id("edit").click()
    expect(page.get_by_test_id("edit-bar")).to_be_visible()
    hit = page.locator("#board .hit[data-place='8']")
    hit.click(modifiers=["Shift"])  # take one off 8
    page.locator("#board .hit[data-place='6']").click(button="right")  # and one off 6
    expect(page.locator("#edit-counts")).to_have_text("white 13 · black 15")
    page.locator("#board .hit[data-place='5']").click()
    page.locator("#board .hit[data-place='5']").click()
    expect(page.locator("#edit-counts")).to_have_text("white 15 · black 15")
    page.get_by_test_id("edit-submit").click()
    expect(page.get_by_test_id("edit-bar")).to_be_hidden()
    expect(page.get_by_test_id("turn-status")).to_contain_text("played 8/5 6/5")
    assert referee.turn is not None and "corrected" in referee.turn.flags


def test_rejecting_an_illegal_play(page: Page, serve: Serve) -> None:
    handle, referee, table = serve("long")
    page.goto(handle.link())
    live(page)
    table.roll(6, 5)
    referee.command("correct", position=Position.initial("long").apply("24/18 24/19").to_json())
    expect(page.locator(".alert[data-code='illegal-play']")).to_be_visible()
    expect(page.get_by_test_id("accept")).to_be_disabled()  # not under the enforce rule
    page.get_by_test_id("reject").click()
    expect(page.get_by_test_id("alerts")).to_be_hidden()
    expect(page.get_by_test_id("turn-status")).to_contain_text("waiting for the play")


# ================================================================================ calibration
def _image_point(page: Page, x: float, y: float, size: tuple[int, int]) -> tuple[float, float]:
    """Page coordinates of image pixel (x, y) in the snapshot's SVG (viewBox, meet, centred)."""
    box = page.get_by_test_id("cal-image").bounding_box()
    assert box is not None
    w, h = size
    scale = min(box["width"] / w, box["height"] / h)
    left = box["x"] + (box["width"] - w * scale) / 2
    top = box["y"] + (box["height"] - h * scale) / 2
    return left + x * scale, top + y * scale


def test_corners_can_be_clicked_on_the_calibration_page(page: Page, serve: Serve) -> None:
    calibration = FakeCalibration()
    handle, _, _ = serve("short", calibration=calibration)
    page.goto(f"{handle.url}calibrate?token={TOKEN}")
    expect(page.locator("#cal-work")).to_be_visible()
    page.get_by_test_id("cal-snapshot").click()
    expect(page.locator("#cal-image image")).to_have_count(1)
    size = (640, 400)
    order = [2, 0, 3, 1]  # any order: the page puts them clockwise from the top-left
    for i, k in enumerate(order):
        page.mouse.click(*_image_point(page, *BOARD_CORNERS[k], size))
        expect(page.locator("body")).to_have_attribute("data-corners", str(i + 1))
    expect(page.locator("#cal-image .corner-label").first).to_have_text("TL")
    # drag the top-left corner 20 pixels to the right, then back
    tl = _image_point(page, *BOARD_CORNERS[0], size)
    page.mouse.move(*tl)
    page.mouse.down()
    page.mouse.move(*_image_point(page, BOARD_CORNERS[0][0] + 20, BOARD_CORNERS[0][1], size), steps=4)
    page.mouse.move(*tl, steps=4)
    page.mouse.up()
    expect(page.locator("body")).to_have_attribute("data-corners", "4")
    page.get_by_test_id("cal-preview").click()
    expect(page.locator("#cal-rectified circle")).to_have_count(10)
    sent = calibration.corners_seen[-1]
    for (x, y), (tx, ty) in zip(sent, BOARD_CORNERS, strict=True):
        assert abs(x - tx) <= 2.5 and abs(y - ty) <= 2.5, (sent, BOARD_CORNERS)
    page.get_by_test_id("cal-colours").click()
    expect(page.get_by_test_id("cal-colour-info")).to_contain_text("Learned")
    page.locator("#cal-name").fill("club table")
    page.get_by_test_id("cal-save").click()
    expect(page.locator("#cal-current")).to_have_text("The live session uses: club table")
    assert "club table" in calibration.saved


def test_automatic_corners_and_the_locked_calibration_page(page: Page, serve: Serve) -> None:
    handle, _, _ = serve("short", calibration=FakeCalibration())
    page.goto(f"{handle.url}calibrate")
    expect(page.get_by_test_id("cal-locked")).to_be_visible()
    page.goto(f"{handle.url}calibrate?token={TOKEN}")
    page.get_by_test_id("cal-snapshot").click()
    expect(page.locator("#cal-image image")).to_have_count(1)
    page.get_by_test_id("cal-auto").click()
    expect(page.get_by_test_id("cal-corner-info")).to_contain_text("93% sure")
    expect(page.locator("body")).to_have_attribute("data-corners", "4")


# ================================================================================ history
def test_history_slider_and_downloads(page: Page, serve: Serve, tmp_path: Path) -> None:
    store = MatchStore.open(tmp_path / "matches.db")
    referee = make_referee("short", length=3, white="Anna", black="Boris")
    recorder = Recorder(store, referee)
    try:
        referee.on_roll((3, 1), "manual")
        referee.command("correct", position=Position.initial("short").apply("8/5 6/5").to_json())
        referee.on_roll((6, 4), "e-dice")
        referee.command(
            "correct", position=Position.initial("short").apply("8/5 6/5").apply("24/18 13/9").to_json()
        )
        referee.on_roll((2, 1), "e-dice")
        handle, _, _ = serve("short", referee=referee, archive=StoreArchive(store))
        page.goto(f"{handle.url}history")
        row = page.locator("#matches tr[data-match='1']")
        expect(row).to_contain_text("Anna")
        row.click()
        expect(page.get_by_test_id("hist-moves").locator("li")).to_have_count(2)
        expect(page.get_by_test_id("downloads").locator("a")).to_have_count(5)
        expect(page.get_by_test_id("hist-caption")).to_have_text("Start of game 1")
        expect(page.locator("#hist-svg g.stack[data-point='8']")).to_have_attribute("data-count", "3")
        page.get_by_test_id("hist-slider").fill("1")
        expect(page.get_by_test_id("hist-caption")).to_have_text("1. White 3-1: 8/5 6/5")
        expect(page.locator("#hist-svg g.stack[data-point='8']")).to_have_attribute("data-count", "2")
        page.keyboard.press("ArrowRight")
        expect(page.get_by_test_id("hist-caption")).to_contain_text("2. Black 6-4")
        expect(page.locator("body")).to_have_attribute("data-index", "2")
        href = page.locator("a[data-format='sgf']").get_attribute("href")
        assert href == "/api/matches/1/export/sgf"
        with page.expect_download() as info:
            page.locator("a[data-format='mat']").click()
        assert info.value.suggested_filename == "match-1.mat"
    finally:
        recorder.close()
        store.close()


def test_history_marks_a_blunder_once_the_analysis_comes(page: Page, serve: Serve, tmp_path: Path) -> None:
    store = MatchStore.open(tmp_path / "matches.db")
    referee = make_referee("short", length=3, white="Anna", black="Boris")
    recorder = Recorder(store, referee)
    go = threading.Event()

    def engines(variant: Any) -> Any:
        go.wait(30)  # the analysis is held back until the page has shown that it is waiting
        return engine_for(variant)  # what the live session uses: GNU Backgammon, else our own

    try:
        record_a_blunder(referee)
        handle, _, _ = serve("short", referee=referee, archive=StoreArchive(store, engines))
        page.goto(f"{handle.url}history")
        page.locator("#matches tr[data-match='1']").click()
        moves = page.get_by_test_id("hist-moves").locator("li")
        expect(moves).to_have_count(2)  # the match is drawn first ...
        box = page.get_by_test_id("hist-analysis")
        expect(box).to_have_attribute("data-state", "busy")  # ... then its analysis is asked for
        expect(page.get_by_test_id("hist-analysis-status")).to_contain_text("Analysing")
        go.set()
        expect(box).to_have_attribute("data-state", "done")
        badge = moves.nth(0).locator(".mark")
        expect(badge).to_have_attribute("data-mark", "blunder")
        expect(badge).to_have_text(re.compile(r"^\?\? −0\.\d{3}$"))
        expect(badge).to_have_attribute("title", re.compile(r"^Blunder: gave up 0\.\d{3}; best 8/5 6/5$"))
        expect(moves.nth(0)).to_have_class(re.compile(r"\bmarked-blunder\b"))
        expect(moves.nth(1).locator(".mark")).to_have_count(0)
        white = page.get_by_test_id("hist-summary").locator("tr[data-side='white']")
        expect(white).to_contain_text("Anna")
        expect(white.locator("td[data-mark='blunder']")).to_have_text("1")
        expect(
            page.get_by_test_id("hist-summary").locator("tr[data-side='black'] td[data-mark='blunder']")
        ).to_have_text("0")
        moves.nth(0).click()
        verdict = page.get_by_test_id("hist-verdict")
        expect(verdict).to_have_attribute("data-mark", "blunder")
        expect(verdict).to_contain_text("Blunder: gave up 0.")
        expect(verdict).to_contain_text("The best play was 8/5 6/5.")
    finally:
        go.set()
        recorder.close()
        store.close()


def test_pages_say_what_is_missing(page: Page, serve: Serve) -> None:
    handle, _, _ = serve("short")
    page.goto(f"{handle.url}history")
    expect(page.get_by_test_id("hist-unavailable")).to_be_visible()
    page.goto(f"{handle.url}calibrate")
    expect(page.get_by_test_id("cal-unavailable")).to_be_visible()
    page.goto(handle.url)
    expect(page.get_by_test_id("camera")).to_contain_text("No camera in this session")
    expect(page.locator("#status-camera")).to_have_text("Camera: none")


def test_closing_the_app_ends_the_stream_and_the_page_says_so(page: Page, serve: Serve) -> None:
    handle, _, _ = serve("short")
    page.goto(handle.url)
    live(page)
    close_app(handle.app)
    expect(page.locator("body")).not_to_have_attribute("data-server", "live")
