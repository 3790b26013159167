"""The reports as a person sees them, in Debian's Chromium (Playwright, ``executable_path``):
a run's ``report.html`` and the ``anchorpath diff --format md`` comment rendered to HTML the
way GitHub does (CommonMark with tables: HTML blocks end at a blank line, so the Markdown
inside ``<details>`` is rendered).

Checked: the page loads with no console error, failed request or script error; at 1280x800 the
verdict and the events (or the diff's summary line) are above the fold; every plot is an SVG
with a visible size and a drawn line; every link to the run's files (WARC, database, bundle)
resolves to a file or folder that exists.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from anchorpath._config import Settings
from anchorpath.cli import main
from anchorpath.demo import DemoServer
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions, RunResult

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[1]
SELECTOR = REPO / "selectors" / "mfds-dmf.json"
CHROMIUM = os.environ.get("ANCHORPATH_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
VIEWPORT = {"width": 1280, "height": 800}


def _settings() -> Settings:
    s = Settings()
    return replace(
        s,
        fetch=replace(
            s.fetch,
            min_delay=0.0,
            delay_factor=0.0,
            allow_private_networks=True,
            contact="tests@anchorpath.invalid",
        ),
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, RunResult]:
    """The demo's days 1 and 2 (ok, with events) and 3 (template change: drift, bundle)."""
    state = tmp_path_factory.mktemp("state")
    out = {}
    with DemoServer(day=1) as srv:
        for day in (1, 2, 3):
            srv.set_day(day)
            out[day] = run_site(
                RunOptions(
                    "mfds-dmf", SELECTOR.parent, state, base_url=srv.base_url, settings=_settings()
                )
            )
    assert [out[d].verdict for d in (1, 2, 3)] == ["ok", "ok", "drift"]
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    from anchorpath.fetch.browser import CHROMIUM_ARGS

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


class Loaded:
    """A page opened at 1280x800 with every console error, page error and failed request."""

    def __init__(self, browser: Any, url: str) -> None:
        self.problems: list[str] = []
        self.page = browser.new_page(viewport=VIEWPORT)
        self.page.on(
            "console",
            lambda m: (
                self.problems.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning")
                else None
            ),
        )
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.problems.append(f"request failed: {r.url}"))
        self.page.goto(url, wait_until="load")

    def above_fold(self, selector: str) -> bool:
        box = self.page.locator(selector).first.bounding_box()
        return (
            box is not None and box["height"] > 0 and box["y"] + box["height"] <= VIEWPORT["height"]
        )


def _check_plots(loaded: Loaded) -> int:
    svgs = loaded.page.locator("svg")
    for i in range(svgs.count()):
        svg = svgs.nth(i)
        box = svg.bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, f"plot {i} has no size"
        drawn = svg.evaluate(
            "s => [...s.querySelectorAll('polyline,path,circle,rect,line')]"
            ".map(e => e.getBBox()).filter(b => b.width > 0 || b.height > 0).length"
        )
        assert drawn > 0, f"plot {i} draws nothing"
    return int(svgs.count())


def _check_links(loaded: Loaded) -> list[str]:
    hrefs: list[str] = loaded.page.locator("a[href]").evaluate_all("as => as.map(a => a.href)")
    for href in hrefs:
        parts = urlsplit(href)
        assert parts.scheme == "file", href
        assert Path(unquote(parts.path)).exists(), f"link does not resolve: {href}"
    return hrefs


def test_run_report_in_chromium(runs: dict[int, RunResult], browser: Any) -> None:
    day2 = Loaded(browser, (runs[2].run_dir / "report.html").as_uri())
    assert day2.problems == []
    assert day2.page.locator(".verdict").inner_text() == "Verdict: ok"
    assert day2.above_fold(".verdict")
    events = day2.page.locator("h2", has_text=re.compile(r"^Events \(\d+\)$"))
    assert events.count() == 1 and day2.above_fold("h2:text-matches('^Events')")
    first_event = events.locator("xpath=following-sibling::table[1]//tr[2]")
    box = first_event.bounding_box()
    assert box and box["y"] + box["height"] <= VIEWPORT["height"], "first event below the fold"
    assert _check_plots(day2) >= 4
    links = _check_links(day2)
    assert any(h.endswith(".warc.gz") for h in links)

    day3 = Loaded(browser, (runs[3].run_dir / "report.html").as_uri())
    assert day3.problems == []
    assert day3.page.locator(".verdict").inner_text() == "Verdict: drift"
    assert day3.above_fold(".verdict") and day3.above_fold("h2:text-matches('^Events')")
    assert _check_plots(day3) >= 4
    links = _check_links(day3)
    assert runs[3].bundle is not None
    assert any(Path(unquote(urlsplit(h).path)) == runs[3].bundle.resolve() for h in links)


def test_diff_comment_rendered_like_github_in_chromium(browser: Any, tmp_path: Path) -> None:
    """The PR comment (``diff --format md``) of a change that reads applicant from the
    manufacturer's row."""
    old = tmp_path / "old.json"
    new = tmp_path / "mfds-dmf.json"
    text = SELECTOR.read_text(encoding="utf-8")
    old.write_text(text, encoding="utf-8")
    new.write_text(
        text.replace("normalize-space()='신청인'", "normalize-space()='제조소'"), encoding="utf-8"
    )
    shutil.copytree(SELECTOR.parent / "fixtures", tmp_path / "fixtures")
    res = CliRunner().invoke(main, ["diff", str(old), str(new), "--format", "md"])
    assert res.exit_code == 1, res.output
    body = MarkdownIt("commonmark").enable("table").render(res.stdout)
    page = tmp_path / "comment.html"
    page.write_text(
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>comment</title>'
        f"</head><body>{body}</body></html>",
        encoding="utf-8",
    )
    loaded = Loaded(browser, page.as_uri())
    assert loaded.problems == []
    assert loaded.above_fold("h3") and loaded.above_fold("details summary")
    summary = loaded.page.locator("details summary").first
    assert ".applicant: xpath" in summary.inner_text()
    table = loaded.page.locator("details table").first
    assert not table.is_visible()
    summary.click()
    assert table.is_visible()
    assert "|" not in loaded.page.locator("details").first.inner_text().split("\n", 1)[1][:200]
