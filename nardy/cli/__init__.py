"""The ``nardy`` command line.

Each subcommand lives in its own module of this package. A module is a subcommand when it
defines ``register(subparsers) -> None``; ``register`` adds its parser and sets ``func`` (a
callable taking the parsed namespace and returning an exit code) with ``set_defaults``.
Modules import their heavy dependencies (OpenCV, Flask, pyserial) inside ``func`` only, so
that ``nardy plays`` starts fast and nothing happens at import.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from nardy import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nardy",
        description="Referee, record and analyse games of nardy (short and long) played on a real board.",
    )
    parser.add_argument("--version", action="version", version=f"nardy {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``nardy`` command with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        code: int = func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code
