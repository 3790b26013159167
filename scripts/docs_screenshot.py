"""Regenerate docs/session-demo-detail.png: a demo detail page as the review session shows it
(every field of the packaged demo selector file outlined and labelled), cut to the fields.

Run from the repository root: ``.venv/bin/python scripts/docs_screenshot.py``
(needs Debian's chromium and a Korean font: scripts/setup.sh installs both).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from anchorpath.authoring.seeds import load_seed
from anchorpath.authoring.session.core import Session
from anchorpath.authoring.session.screenshot import render_highlights
from anchorpath.selectors.load import load_selector_file

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "session-demo-detail.png"


def main() -> None:
    path = ROOT / "selectors" / "mfds-dmf.json"
    sf = load_selector_file(path)
    fixture = next(f for f in sf.fixtures if "view" in f.page)
    page = load_seed(str(path.parent / fixture.page), url=fixture.url)
    session = Session(sf, "detail", [page])
    with tempfile.TemporaryDirectory() as tmp:
        (shot,) = render_highlights([page], session.matched_nodes(), Path(tmp), crop=True)
        OUT.parent.mkdir(exist_ok=True)
        shutil.copyfile(shot, OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
