"""Highlighted seed screenshots: Chromium renders the seed with every field outlined."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.authoring.session.core import Session
from anchorpath.authoring.session.screenshot import chromium_executable, render_highlights
from anchorpath.cli import main

pytestmark = [
    pytest.mark.slow,
    pytest.mark.browser,
    pytest.mark.skipif(not Path(chromium_executable()).exists(), reason="no chromium"),
]


def test_screenshots_outline_matched_nodes(session: Session, tmp_path: Path) -> None:
    marked = render_highlights(session.pages, session.matched_nodes(), tmp_path, stem="detail")
    plain = render_highlights(
        session.pages, session.matched_nodes(), tmp_path, overlay=False, stem="plain"
    )
    assert [p.name for p in marked] == ["detail-1.png", "detail-2.png", "detail-3.png"]
    for m, p in zip(marked, plain, strict=True):
        assert m.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert m.read_bytes() != p.read_bytes()  # outlines drawn where nodes matched


def test_session_writes_screenshots_and_cleans_up(shop: Path, seed_args: list[str]) -> None:
    before = set(Path(tempfile.gettempdir()).glob("anchorpath-session-*"))
    base = ["author", "new-site", "shop", *seed_args, "--examples", str(shop / "ex.json")]
    base += ["--out", str(shop / "sel"), "--required", "isbn"]
    res = CliRunner().invoke(main, base, input="q\n")
    assert res.exit_code == 1 and "screenshot: " in res.output
    assert not (shop / "sel").exists()
    res = CliRunner().invoke(main, base, input="\n" * 4)
    assert res.exit_code == 0, res.output
    shots = sorted((shop / "sel/fixtures/shop/screenshots").glob("*.png"))
    assert [p.name for p in shots] == ["detail-1.png", "detail-2.png", "detail-3.png"]
    assert set(Path(tempfile.gettempdir()).glob("anchorpath-session-*")) == before
