"""Long nardy: every case of the cross-checked data set gives exactly its legal results."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from nardy.rules import Position, find_variant

CASES = Path(__file__).resolve().parents[1] / "data" / "long-nardy-cases.jsonl"


def test_every_case_matches() -> None:
    variant = find_variant("long")
    tags: Counter[str] = Counter()
    mismatches = []
    for line in CASES.read_text().splitlines():
        case = json.loads(line)
        position = Position.from_json(case["position"])
        legal = variant.legal_plays(position, case["roll"], first_turn=case["first_turn"])
        got = {(p.points, p.off_white, p.off_black) for p in legal.positions()}
        want = {(tuple(r["points"]), r["off"]["white"], r["off"]["black"]) for r in case["results"]}
        if got != want:
            mismatches.append(case["tag"])
        tags[case["tag"]] += 1
    assert sum(tags.values()) == 2178
    assert tags["wrap-block"] == 1 and tags["block-in-passing"] == 1
    assert mismatches == []
