"""A worker process around the PyPI ``gnubg`` bindings: JSON lines in, JSON lines out.

Run as ``python -m nardy.hints.gnubg_worker``. GNU Backgammon's C code can take the whole
process down on input it does not expect; in a worker of its own, a crash costs one answer and
the caller carries on. Requests (one JSON object a line) and answers::

    {"op": "ping"}                                              -> {"ok": true, "version": "..."}
    {"op": "moves", "board": B, "dice": [6, 5], "plies": 2}     -> {"moves": [{"move": [...], "score": x}]}
    {"op": "evaluate", "boards": [B, ...], "plies": 0}          -> {"evals": [[w, wg, wbg, lg, lbg, eq], ...]}

``B`` is gnubg's board: two lists of 25 counts, ``[player not on roll, player on roll]``, each in
its own numbering with the bar last. Evaluations are cubeless money play, from the side on roll.
An error answers ``{"error": "..."}``.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def handle(gnubg: Any, request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    if op == "ping":
        version = gnubg.version() if callable(gnubg.version) else gnubg.version
        return {"ok": True, "version": str(version)}
    cube = gnubg.cube_info()
    plies = int(request.get("plies", 0))
    context = gnubg.eval_context(0, plies, 1, 1 if plies else 0, 0.0)  # cubeless, pruning nets past 0-ply
    if op == "moves":
        board = tuple(list(side) for side in request["board"])
        dice = tuple(int(d) for d in request["dice"])
        moves = gnubg.find_best_moves(board, cube, context, dice)
        return {"moves": [{"move": list(m["move"]), "score": float(m["score"])} for m in moves]}
    if op == "evaluate":
        evals = [list(gnubg.evaluate(tuple(list(s) for s in b), cube, context)) for b in request["boards"]]
        return {"evals": evals}
    return {"error": f"unknown op {op!r}"}


def serve() -> int:
    import gnubg

    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            answer = handle(gnubg, json.loads(line))
        except Exception as exc:  # every failure goes back to the caller as data
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(serve())
