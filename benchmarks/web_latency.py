"""Dashboard latency: from a referee event to the viewers, and what viewers cost the referee.

A real server on 127.0.0.1 (werkzeug, threaded) over a real referee in the middle of a turn (so
every snapshot carries the legal plays). Events are paced ``--gap`` ms apart, as at a table:

- **browser**: headless Chromium (``/usr/bin/chromium``) on the live page; the time from the
  referee's call to the moment the page's DOM shows that version (a MutationObserver stamps it with
  the browser's wall clock; same machine, same clock);
- **SSE N**: N plain HTTP clients reading the event stream, in threads of another process (as
  viewers are other devices); the time from the referee's call to each client's receipt of that
  version;
- **referee call**: how long the referee's own call takes (what the camera loop or the dice
  reader waits for) -- with no viewers, and with 50: the broadcaster must not make it slower;
- **burst**: the same events back to back with no gap: are slow-enough viewers dropped, does the
  stream coalesce.

Run: ``python -m benchmarks.web_latency [--events 200] [--viewers 50] [--no-browser]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks._table import table, write
from nardy.referee.match import MatchInfo
from nardy.referee.session import Referee
from nardy.web.app import ServerHandle, create_app, dashboard_of, serve_in_thread
from nardy.web.services import Mode, Services, Settings

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _ms(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _session(mode: Mode = "training") -> tuple[Referee, ServerHandle]:
    referee = Referee(MatchInfo(variant="short", white="Anna", black="Boris"))
    referee.on_roll((3, 1), "manual")  # a turn in progress: the snapshot carries the legal plays
    app = create_app(Services(referee, settings=Settings(mode=mode, max_viewers=500, client_queue=64)))
    return referee, serve_in_thread(app, "127.0.0.1", 0)


def _event(referee: Referee, i: int) -> None:
    """One referee event that changes what viewers see (an alert raised or cleared)."""
    if i % 2:
        referee.clear_alert("storage")
    else:
        referee.report_alert("storage", "info", f"note {i}")


class Reader(threading.Thread):
    """One SSE viewer: records when (``time.monotonic``, system-wide) each version arrived."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.arrived: dict[int, float] = {}
        self.ready = threading.Event()
        self.ended = False
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def run(self) -> None:
        self.conn.request("GET", "/events")
        response = self.conn.getresponse()
        try:
            while True:
                line = response.readline()
                if not line:
                    break
                if line.startswith(b"data: "):
                    now = time.monotonic()
                    data = json.loads(line[6:])
                    version = data["full"]["version"] if "full" in data else data["version"]
                    self.arrived.setdefault(version, now)
                    self.ready.set()
        except (OSError, http.client.HTTPException, ValueError):
            pass
        self.ended = True

    def close(self) -> None:
        self.conn.close()


def _viewers_process(port: int, n: int, ready: Any, last: Any, results: Any) -> None:
    """The viewers, in a process of their own (as browsers on other devices are): they must not
    share the server's interpreter lock."""
    readers = [Reader(port) for _ in range(n)]
    for r in readers:
        r.start()
    for r in readers:
        r.ready.wait(10)
    ready.set()
    final = last.get(timeout=120)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(final not in r.arrived for r in readers if not r.ended):
        time.sleep(0.01)
    results.put([r.arrived for r in readers])
    for r in readers:
        r.close()
        r.join(5)


def run_sse(viewers: int, events: int, gap: float) -> dict[str, Any]:
    import multiprocessing

    referee, handle = _session()
    ctx = multiprocessing.get_context("spawn")
    ready, last, results = ctx.Event(), ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=_viewers_process, args=(handle.port, viewers, ready, last, results))
    try:
        child.start()
        if not ready.wait(60):
            raise RuntimeError("the viewers did not connect")
        calls: list[float] = []
        sent: dict[int, float] = {}
        for i in range(events):
            t0 = time.monotonic()
            _event(referee, i)
            calls.append(time.monotonic() - t0)
            sent[referee.bus.seq] = t0
            if gap:
                time.sleep(gap)
        final = referee.bus.seq
        last.put(final)
        arrived: list[dict[int, float]] = results.get(timeout=60)
        child.join(10)
        delays = [a[v] - t for a in arrived for v, t in sent.items() if v in a]
        broadcaster = dashboard_of(handle.app).broadcaster
        return {
            "viewers": viewers,
            "events": events,
            "gap_ms": gap * 1000,
            "call_p50_ms": _ms(calls, 0.5),
            "call_p99_ms": _ms(calls, 0.99),
            "delay_p50_ms": _ms(delays, 0.5),
            "delay_p99_ms": _ms(delays, 0.99),
            "delay_max_ms": _ms(delays, 1.0),
            "published": broadcaster.published,
            "dropped": broadcaster.dropped,
            "missed_last": sum(1 for a in arrived if final not in a),
        }
    finally:
        handle.stop()
        if child.is_alive():
            child.terminate()
            child.join(5)


def run_without_viewers(events: int, gap: float) -> dict[str, Any]:
    referee = Referee(MatchInfo(variant="short"))
    referee.on_roll((3, 1), "manual")
    calls = []
    for i in range(events):
        t0 = time.monotonic()
        _event(referee, i)
        calls.append(time.monotonic() - t0)
        if gap:
            time.sleep(gap)
    return {
        "viewers": 0,
        "events": events,
        "gap_ms": gap * 1000,
        "call_p50_ms": _ms(calls, 0.5),
        "call_p99_ms": _ms(calls, 0.99),
    }


STAMP = """
window.__versions = [];
new MutationObserver(() => {
  window.__versions.push([Number(document.body.dataset.version), performance.timeOrigin + performance.now()]);
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-version"]});
"""


def run_browser(events: int, gap: float) -> dict[str, Any]:
    from playwright.sync_api import expect, sync_playwright

    referee, handle = _session()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            page.add_init_script(STAMP)
            page.goto(handle.url)
            expect(page.locator("body")).to_have_attribute("data-server", "live")
            sent: dict[int, float] = {}
            for i in range(events):  # no driver calls in between: a spectator's page is not being polled
                t0 = time.time()
                _event(referee, i)
                sent[referee.bus.seq] = t0
                time.sleep(gap)
            expect(page.locator("body")).to_have_attribute("data-version", str(referee.bus.seq))
            stamps = page.evaluate("window.__versions")
            browser.close()
    finally:
        handle.stop()
    seen: dict[int, float] = {}
    for v, t in stamps:  # the first time the page showed each version
        seen.setdefault(int(v), t / 1000)
    delays = [seen[v] - t for v, t in sent.items() if v in seen]
    return {
        "viewers": 1,
        "events": events,
        "gap_ms": gap * 1000,
        "delay_p50_ms": _ms(delays, 0.5),
        "delay_p99_ms": _ms(delays, 0.99),
        "delay_max_ms": _ms(delays, 1.0),
        "shown": len(delays),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=500, help="events per run (default 500)")
    parser.add_argument("--viewers", type=int, default=50, help="SSE viewers in the big run (default 50)")
    parser.add_argument("--gap", type=float, default=20.0, help="milliseconds between events (default 20)")
    parser.add_argument("--no-browser", action="store_true", help="skip the Chromium run")
    args = parser.parse_args(argv)
    gap = args.gap / 1000

    runs: dict[str, dict[str, Any]] = {}
    runs["referee alone"] = run_without_viewers(args.events, gap)
    runs["referee alone, burst"] = run_without_viewers(args.events, 0.0)
    runs["SSE, 1 viewer"] = run_sse(1, args.events, gap)
    runs[f"SSE, {args.viewers} viewers"] = run_sse(args.viewers, args.events, gap)
    runs[f"SSE, {args.viewers} viewers, burst"] = run_sse(args.viewers, args.events, 0.0)
    if not args.no_browser and CHROMIUM.exists():  # last: Chromium's start and exit load the machine
        runs["browser (Chromium, live page)"] = run_browser(min(args.events, 300), gap)

    def cell(run: dict[str, Any], key: str) -> Any:
        value = run.get(key)
        return "—" if value is None else value

    headers = [
        "run",
        "viewers",
        "events",
        "referee call p50 ms",
        "p99 ms",
        "event→viewer p50 ms",
        "p99 ms",
        "max ms",
        "messages",
        "dropped",
    ]
    rows = [
        [
            name,
            r["viewers"],
            r["events"],
            cell(r, "call_p50_ms"),
            cell(r, "call_p99_ms"),
            cell(r, "delay_p50_ms"),
            cell(r, "delay_p99_ms"),
            cell(r, "delay_max_ms"),
            cell(r, "published"),
            cell(r, "dropped"),
        ]
        for name, r in runs.items()
    ]
    print(table(headers, rows))
    print("goal: event → browser under 50 ms; the referee's call no slower with 50 viewers than with none")
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"machine load average while measuring: {load}")
    path = write("web_latency", {"gap_ms": args.gap, "load_average": load, "runs": runs})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
