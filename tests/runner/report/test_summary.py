"""The run summary's renderer line and change rate (``report/summary.py``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from anchorpath.runner.report.model import RunReport
from anchorpath.runner.report.render import render_markdown
from anchorpath.runner.report.summary import change_rate, renderer_line
from anchorpath.runner.store.database import RunRow, Store


def test_renderer_line_names_the_renderer_and_its_timings() -> None:
    assert renderer_line("http", {}) == "http"
    line = renderer_line(
        "browser", {"rendered": 71, "render_seconds": 7.6, "browser_launch_seconds": 1.12}
    )
    assert line == "browser (Chromium): 71 pages rendered, 107 ms/page, launch 1.1 s"
    assert renderer_line("browser", {}).startswith("browser (Chromium): 0 pages rendered")


def test_report_shows_the_renderer() -> None:
    md = render_markdown(RunReport("r1", "s", "ok", renderer="http"))
    assert "- renderer: http" in md


def test_change_rate_reads_no_run_statistics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path / "db.sqlite")
    for day in range(1, 6):
        at = f"2024-01-0{day}T00:00:00Z"
        row = RunRow(f"r{day}", "s", at, at, "ok", 1, "", "", new=day % 2, stats={"big": day})
        store.commit_run(replace(row, complete=True))
    calls: list[dict[str, Any]] = []
    runs = store.runs

    def with_stats(site: str, **kw: Any) -> list[RunRow]:
        return runs(site, **{**kw, "stats": True})

    def spy(site: str, **kw: Any) -> list[RunRow]:
        calls.append(kw)
        return runs(site, **kw)

    monkeypatch.setattr(store, "runs", with_stats)
    expected = change_rate(store, "s")
    monkeypatch.setattr(store, "runs", spy)
    assert change_rate(store, "s") == expected  # the statistics never were part of it
    assert calls and all(kw.get("stats") is False for kw in calls)
    assert expected.runs == 5
