"""A recorder in its own process, for the fault tests.

Run as ``python -m tests.recording.recorder_process DB MATCH.json``.

It records the match of MATCH.json (:meth:`MatchRecord.to_json`) into DB through the store's API,
the way the referee does: one call per decision, a board picture with every turn. On start it
resumes whatever DB already holds (:meth:`MatchStore.open_match`), so it can be killed and
restarted at any moment. After each call returns -- the decision is committed -- it prints
``ack GAME ACTION`` and flushes; ``done`` at the end. A :class:`StoreFullError` prints
``full <message>`` and exits with status 3. With ``--ballast FILE`` it deletes FILE once the
disk is full (freeing space, as a director would) and records the same decision again.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from nardy.referee.store import MatchStore, StoreFullError
from nardy.rules.record import CubeAction, MatchRecord, TurnRecord


def jpeg(game: int, action: int, size: int) -> bytes:
    """A stand-in board picture: JPEG markers around ``size`` bytes that differ per turn."""
    body = bytes((game * 31 + action * 7 + i) % 251 for i in range(size))
    return b"\xff\xd8\xff" + body + b"\xff\xd9"


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("db", type=Path)
    parser.add_argument("match", type=Path)
    parser.add_argument("--picture-bytes", type=int, default=6000)
    parser.add_argument("--ballast", type=Path)
    args = parser.parse_args(argv)
    record = MatchRecord.from_json(json.loads(args.match.read_text()))
    with MatchStore.open(args.db) as store:
        point = store.open_match()
        if point is None:
            match_id = store.create_match(record.info)
            stored = MatchRecord(record.info)
        else:
            match_id, stored = point.match_id, point.record
        store.begin_session(match_id)
        game_id = point.game_id if point is not None else None
        for g, game in enumerate(record.games):
            done = stored.games[g] if g < len(stored.games) else None
            if done is not None and done.finished:
                continue
            if done is None:
                game_id = store.start_game(match_id, at=game.started_at, jpeg=jpeg(g, 0, args.picture_bytes))
                say(f"ack {g + 1} 0")
            assert game_id is not None
            already = 0 if done is None else len(done.actions)
            for a in range(already, len(game.actions)):
                action = game.actions[a]
                while True:
                    try:
                        if isinstance(action, TurnRecord):
                            store.add_turn(game_id, action, jpeg(g, a + 1, args.picture_bytes))
                        else:
                            assert isinstance(action, CubeAction)
                            store.add_cube_action(game_id, action)
                        break
                    except StoreFullError as exc:
                        say(f"full {exc}")
                        if args.ballast is None or not args.ballast.exists():
                            return 3
                        os.unlink(args.ballast)  # free space, then the same decision again
                say(f"ack {g + 1} {a + 1}")
            assert game.result is not None and game.ending is not None
            store.end_game(game_id, game.result, game.ending, at=game.ended_at)
            say(f"ack {g + 1} end")
        store.end_match(match_id, at=record.ended_at)
    say("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
