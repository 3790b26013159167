"""Seeds rendered by Debian Chromium: saved pages with every request blocked, legacy
encodings decoded as the runner decodes them, URL seeds through the polite fetcher."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from anchorpath._config import load_settings
from anchorpath.authoring.seeds_render import chromium_path, render_seeds
from anchorpath.fetch.testing import FaultServer, ok

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed"),
]


def test_saved_pages_render_offline_and_urls_go_through_the_fetcher(tmp_path: Path) -> None:
    with FaultServer({"/pixel.js": ok(b"window.x = 1;", "application/javascript")}) as other:
        kr = (
            '<html><head><meta charset="euc-kr"><title>공지</title></head><body>'
            "<p id=v>식품의약품안전처 공지사항</p>"
            f"<script src='{other.url('/pixel.js')}'></script>"
            "<script>document.getElementById('v').dataset.js = 'ran';"
            "document.body.insertAdjacentHTML('beforeend', '<p>by script</p>');</script>"
            "</body></html>"
        )
        f = tmp_path / "kr.html"
        f.write_bytes(kr.encode("cp949"))
        page = (
            b"<html><body><div id=d></div><script>d.textContent='rendered'</script></body></html>"
        )
        with FaultServer({"/item/1": ok(page)}, robots="User-agent: *\nAllow: /\n") as site:
            env = {
                "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
                "ANCHORPATH_FETCH__MIN_DELAY": "0",
                "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
                "ANCHORPATH_FETCH__CONTACT": "t@example.org",
            }
            settings = load_settings(env=env)
            seeds = render_seeds(
                [str(f), site.url("/item/1")], ["http://board.test/view?id=1", ""], settings
            )
            assert site.paths()[0] == "/robots.txt" and "/item/1" in site.paths()
        assert other.paths() == []  # nothing left the browser for the saved page
    kr_seed, url_seed = seeds
    assert "식품의약품안전처 공지사항" in kr_seed.html and "by script" in kr_seed.html
    assert kr_seed.url == "http://board.test/view?id=1" and kr_seed.source == str(f)
    import hashlib

    assert kr_seed.sha256 == hashlib.sha256(f.read_bytes()).hexdigest()
    assert "rendered" in url_seed.html


def test_chromium_path_from_env() -> None:
    assert chromium_path({"ANCHORPATH_CHROMIUM": "/opt/c"}) == "/opt/c"
