"""The ``--size`` value every command that takes one reads the same way."""

from __future__ import annotations

from pathlib import Path

import pytest

from nardy.cli import main
from nardy.cli._args import parse_size


def test_sizes_read_as_two_positive_numbers() -> None:
    assert parse_size("1280x720") == (1280, 720)
    assert parse_size("640X360") == (640, 360)
    with pytest.raises(ValueError, match=r"--size must be WIDTHxHEIGHT, like 1280x720, not '1280 by 720'"):
        parse_size("1280 by 720")
    with pytest.raises(ValueError, match=r"--size must be positive, not '0x720'"):
        parse_size("0x720")
    with pytest.raises(ValueError, match=r"--size must be COLUMNSxROWS, like 9x6, not '9x6x2'"):
        parse_size("9x6x2", form="COLUMNSxROWS", example="9x6")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["synth", "--n", "1", "--size", "0x360"], "nardy synth: --size must be positive, not '0x360'"),
        (["demo", "--size", "640"], "nardy demo: --size must be WIDTHxHEIGHT, like 1280x720, not '640'"),
        (
            ["calibrate", "camera", "--size", "9by6", "none.png"],
            "nardy calibrate: --size must be COLUMNSxROWS, like 9x6, not '9by6'",
        ),
    ],
)
def test_commands_refuse_a_bad_size_by_name(
    args: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A size that is not two positive numbers is refused before anything is made or read."""
    if args[0] == "synth":
        args = [*args, "--out", str(tmp_path / "set")]
    assert main(args) == 2
    assert said in capsys.readouterr().err
    assert not (tmp_path / "set").exists()
