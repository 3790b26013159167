"""The run summary's renderer line (``report/summary.py``)."""

from __future__ import annotations

from anchorpath.runner.report.render import render_markdown
from anchorpath.runner.report.summary import renderer_line


def test_renderer_line_names_the_renderer_and_its_timings() -> None:
    assert renderer_line("http", {}) == "http"
    line = renderer_line(
        "browser", {"rendered": 71, "render_seconds": 7.6, "browser_launch_seconds": 1.12}
    )
    assert line == "browser (Chromium): 71 pages rendered, 107 ms/page, launch 1.1 s"
    assert renderer_line("browser", {}).startswith("browser (Chromium): 0 pages rendered")


def test_report_shows_the_renderer() -> None:
    md = render_markdown({"run_id": "r1", "site": "s", "verdict": "ok", "renderer": "http"})
    assert "- renderer: http" in md
