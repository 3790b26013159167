"""Regenerate the screenshots in docs/:

* ``session-demo-detail.png``: a demo detail page as the review session shows it (every field
  of the packaged demo selector file outlined and labelled), cut to the fields;
* ``report-demo-drift.png``: the ``report.html`` of the demo's day 3 (the template change the
  drift gate stops) in Chromium at 1280x800, what a person sees first.

Run from the repository root: ``.venv/bin/python scripts/docs_screenshot.py [session|report]``
(needs Debian's chromium and a Korean font: scripts/setup.sh installs both).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from anchorpath.authoring.seeds import load_seed
from anchorpath.authoring.session.core import Session
from anchorpath.authoring.session.screenshot import render_highlights
from anchorpath.selectors.load import load_selector_file

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "session-demo-detail.png"
REPORT_OUT = ROOT / "docs" / "report-demo-drift.png"


def report_screenshot() -> None:
    """Days 1-3 of the demo on loopback, then day 3's report.html at 1280x800."""
    from playwright.sync_api import sync_playwright

    from anchorpath._config import Settings
    from anchorpath.authoring.session.screenshot import chromium_executable
    from anchorpath.demo import DemoServer
    from anchorpath.fetch.browser import CHROMIUM_ARGS
    from anchorpath.runner.pipeline import run_site
    from anchorpath.runner.run_types import RunOptions

    s = Settings()
    fast = replace(
        s,
        fetch=replace(
            s.fetch,
            min_delay=0.0,
            delay_factor=0.0,
            allow_private_networks=True,
            contact="docs@anchorpath.invalid",
        ),
    )
    with tempfile.TemporaryDirectory() as tmp:
        with DemoServer(day=1) as srv:
            for day in (1, 2, 3):
                srv.set_day(day)
                result = run_site(
                    RunOptions(
                        "mfds-dmf",
                        ROOT / "selectors",
                        Path(tmp),
                        base_url=srv.base_url,
                        settings=fast,
                    )
                )
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=chromium_executable(), args=CHROMIUM_ARGS, headless=True
            )
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto((result.run_dir / "report.html").as_uri(), wait_until="load")
            page.screenshot(path=str(REPORT_OUT))
            browser.close()
    print(f"wrote {REPORT_OUT} ({REPORT_OUT.stat().st_size} bytes)")


def session_screenshot() -> None:
    path = ROOT / "selectors" / "mfds-dmf.json"
    sf = load_selector_file(path)
    fixture = next(f for f in sf.fixtures if "view" in f.page)
    page = load_seed(str(path.parent / fixture.page), url=fixture.url)
    session = Session(sf, "detail", [page])
    with tempfile.TemporaryDirectory() as tmp:
        (shot,) = render_highlights([page], session.matched_nodes(), Path(tmp), full=False)
        OUT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


def main() -> None:
    which = sys.argv[1:] or ["session", "report"]
    if "session" in which:
        session_screenshot()
    if "report" in which:
        report_screenshot()


if __name__ == "__main__":
    main()
