"""What ``anchorpath run`` prints: page-derived text without control characters or markup,
no wrapping when stdout is not a terminal, full drift reasons, duplicates and unseen records."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from anchorpath._text import terminal_safe
from anchorpath.cli.options import output_console
from anchorpath.cli.run import print_summary
from anchorpath.runner.drift.check import DriftResult
from anchorpath.runner.run_types import RunResult
from anchorpath.runner.store.database import Event

EVIL = "\x1b[2J\x1b[31mGame Over\x1b[0m\x07 [bold]x[/bold] \u202eevil"


def _print(result: RunResult) -> str:
    buf = io.StringIO()
    console = Console(file=buf, soft_wrap=True, width=4096, color_system=None)
    print_summary(result, console)
    return buf.getvalue()


def test_terminal_safe() -> None:
    assert terminal_safe(EVIL) == "Game Over [bold]x[/bold] evil"
    assert terminal_safe("line\nbreak\ttab") == "line break tab"
    assert terminal_safe("등록번호 R-1") == "등록번호 R-1"
    assert terminal_safe("\x1b]8;;http://evil/\x1b\\click\x1b]8;;\x1b\\") == "click"


def test_summary_strips_control_characters_from_page_text(tmp_path: Path) -> None:
    r = RunResult("r1", "books", "drift", 3, tmp_path, reason=f"drift: {EVIL}")
    r.events = [Event(EVIL, "changed", {"title": ("old", EVIL)})]
    r.drift = DriftResult("drift", 3.0, fields={"title": [f"now {EVIL}"]})
    out = _print(r)
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "[bold]x[/bold]" in out  # shown as text, not taken as markup


def test_full_drift_reasons_and_no_wrapping(tmp_path: Path) -> None:
    long_dir = tmp_path / ("d" * 150)
    r = RunResult("r1", "books", "drift", 3, long_dir, bundle=long_dir / "bundle")
    reasons = [f"reason {i}: " + "x" * 200 for i in range(3)]
    r.drift = DriftResult("drift", 3.0, fields={f"f{i}": [reasons[i]] for i in range(3)})
    out = _print(r)
    for line in reasons:
        assert line in out  # every reason, in full
    assert f"anchorpath author repair books --bundle {long_dir / 'bundle'}" in out
    assert f"report: {long_dir / 'report.html'}" in out


def test_duplicates_and_unseen_are_reported(tmp_path: Path) -> None:
    r = RunResult("r1", "books", "ok", 0, tmp_path, complete=True, unseen=2)
    r.duplicates = {"Game Over": ["http://x/book/1", "http://x/book/2"]}
    out = _print(r)
    assert "1 duplicate key(s)" in out
    assert "Game Over (http://x/book/1 and http://x/book/2)" in out
    assert "2 stored record(s) not reached by this run: unseen, not withdrawn" in out


def test_output_console_does_not_wrap_when_not_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("sys.stdout.isatty", lambda: False)
    console = output_console()
    with console.capture() as cap:
        console.print("report: /" + "p" * 300)
    assert cap.get().count("\n") == 1


def test_new_events_show_their_values(tmp_path: Path) -> None:
    r = RunResult("r1", "books", "ok", 0, tmp_path, complete=True)
    r.events = [Event("B1", "new", {"author": (None, "Kim"), "title": (None, "Game Over")})]
    out = _print(r)
    assert "author: Kim; title: Game Over" in out and "∅" not in out
    many = {f"f{i}": (None, f"value {i} " + "x" * 40) for i in range(6)}
    r.events = [Event("B2", "new", many)]
    out = _print(r)  # a glimpse: three values, each cut short
    assert "f0: value 0 xxxxxxxxxxxxxxx…; f1:" in out and "; +3 more" in out and "f3:" not in out
