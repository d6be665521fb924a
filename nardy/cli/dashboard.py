"""``nardy dashboard``: the dashboard on a referee fed by hand (a development and demo aid).

No camera and no dice hub: dice are entered on the page (or typed), plays by clicking a legal
play (training mode) or by correcting the board. The live session with a camera and e-dice is
``nardy serve``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "dashboard",
        help="run the dashboard on a referee fed by manual dice only",
        description=(
            "Serve the dashboard (live board, history and calibration pages) on a referee with no "
            "camera and no dice hub: enter dice on the page or by typing them, and plays by clicking a "
            "legal play (training mode) or correcting the board. The access token is printed at "
            "start-up, with a link that unlocks the controls in the browser that opens it."
        ),
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; 0.0.0.0 lets other devices watch)",
    )
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    parser.add_argument("--variant", default="short", help="short (backgammon) or long nardy (default short)")
    parser.add_argument("--length", type=int, default=0, help="match length in points (default 0: unlimited)")
    parser.add_argument("--white", default="White", help="white's name")
    parser.add_argument("--black", default="Black", help="black's name")
    parser.add_argument(
        "--mode",
        choices=("referee", "training"),
        default="training",
        help="referee: no hints shown; training: legal plays and hints (default)",
    )
    parser.add_argument(
        "--token", default=None, help="access token for the controls (default: a new random one each start)"
    )
    parser.add_argument(
        "--no-hints", action="store_true", help="do not rank plays (training mode still lists them)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import threading

    from nardy.referee.match import MatchInfo
    from nardy.referee.session import Referee
    from nardy.rules import find_variant
    from nardy.web.app import create_app, serve_in_thread
    from nardy.web.services import HintFactory, Services, Settings, new_token

    try:
        variant = find_variant(args.variant).name
        settings = Settings(mode=args.mode, token=args.token or new_token())
        if not 0 <= args.length <= 99:
            raise ValueError("--length must be 0 to 99")
    except ValueError as exc:
        print(f"nardy dashboard: {exc}", file=sys.stderr)
        return 2
    referee = Referee(MatchInfo(variant=variant, length=args.length, white=args.white, black=args.black))
    hints: HintFactory | None = None
    if not args.no_hints:
        try:
            from nardy.hints.engine import engine_for

            hints = engine_for
        except ImportError as exc:  # the hint engine is optional
            print(f"hints are off: {exc}", file=sys.stderr)
    app = create_app(Services(referee, hints=hints, settings=settings))
    try:
        handle = serve_in_thread(app, args.host, args.port)
    except OSError as exc:
        print(f"nardy dashboard: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 1
    print(f"Dashboard: {handle.url}", file=sys.stderr)
    print(f"Access token: {settings.token}", file=sys.stderr)
    print(
        f"Open this link on the table's own screen (it unlocks the controls): {handle.link()}",
        file=sys.stderr,
    )
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print("Other devices can watch; the controls need the token.", file=sys.stderr)
    print("Ctrl-C stops.", file=sys.stderr)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        handle.stop()
    return 0
