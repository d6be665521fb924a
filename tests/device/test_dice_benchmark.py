"""The parsing benchmark runs and writes its JSON (with a tiny load, so it stays quick)."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "dice_parse.py"


def test_the_benchmark_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main = runpy.run_path(str(BENCHMARK))["main"]
    out = tmp_path / "dice_parse.json"
    assert main(["--lines", "500", "--repeats", "1", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    cases = {row["case"] for row in report["results"]}
    assert {"parse", "parse + decode", "serial reader over a pty"} <= cases
    assert all(row["lines_per_second"] > 0 for row in report["results"])
    assert "lines/s" in capsys.readouterr().out
