"""Assertions shared by the command-line tests."""

from __future__ import annotations

import pytest

from simcards.core.cli import main


def assert_one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str],
                          part: str) -> None:
    """``simcards ARGV`` exits with 2, prints nothing on stdout and one line on stderr, the
    project's error line, which contains ``part``."""
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("simcards: error: ") and part in lines[0]
