"""``nardy dashboard``: its help and its refusals (the server itself is tested through the app)."""

from __future__ import annotations

import socket

import pytest

from nardy.cli import main


def test_help_explains_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["dashboard", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "no camera and no dice hub" in out and "--host" in out and "access token" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "chess"], "chess"),
        (["--length", "100"], "--length must be 0 to 99"),
        (["--token", "short"], "at least 8 characters"),
    ],
)
def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["dashboard", "--port", "0", *args]) == 2
    assert message in capsys.readouterr().err


def test_a_port_in_use_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["dashboard", "--port", str(port), "--no-hints"]) == 1
    assert "cannot listen" in capsys.readouterr().err
