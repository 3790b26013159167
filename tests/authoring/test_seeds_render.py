"""Seeds rendered by Debian Chromium: saved pages with every request blocked, legacy
encodings decoded as the runner decodes them, URL seeds through the polite fetcher."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from anchorpath._config import load_settings
from anchorpath._errors import AuthoringError, ConfigError
from anchorpath.authoring.seeds_render import render_seeds, wait_xpath
from anchorpath.fetch.browser import chromium_executable
from anchorpath.fetch.testing import FaultServer, ok

_CHROMIUM = pytest.mark.skipif(
    shutil.which("chromium") is None, reason="Debian chromium not installed"
)


@pytest.mark.browser
@pytest.mark.slow
@_CHROMIUM
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
    assert chromium_executable({"ANCHORPATH_CHROMIUM": "/opt/c"}) == "/opt/c"


_LATE = (
    b"<html><body><h1>Item</h1><script>setTimeout(() => document.body.insertAdjacentHTML("
    b"'beforeend', '<p id=\"late\">42.' + '50 EUR</p>'), 1200)</script></body></html>"
)


@pytest.mark.browser
@pytest.mark.slow
@_CHROMIUM
def test_wait_for_selector_reads_content_a_script_inserts_late(tmp_path: Path) -> None:
    f = tmp_path / "late.html"
    f.write_bytes(_LATE)
    with FaultServer({"/item/1": ok(_LATE)}, robots="User-agent: *\nAllow: /\n") as site:
        env = {
            "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
            "ANCHORPATH_FETCH__MIN_DELAY": "0",
            "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
            "ANCHORPATH_FETCH__CONTACT": "t@example.org",
            "ANCHORPATH_FETCH__TOTAL_TIMEOUT": "4",
        }
        url = site.url("/item/1")
        (plain,) = render_seeds([str(f)], ["http://shop.test/item/1"], load_settings(env=env))
        assert "42.50 EUR" not in plain.html  # read at the load event: too early
        waited = load_settings(env={**env, "ANCHORPATH_RENDER__WAIT_FOR": "p#late"})
        seeds = render_seeds([url, str(f)], ["", "http://shop.test/item/1"], waited)
        assert all("42.50 EUR" in s.html for s in seeds)
        never = load_settings(env={**env, "ANCHORPATH_RENDER__WAIT_FOR": ".never"})
        with pytest.raises(AuthoringError) as err:
            render_seeds([url], [], never)
    assert str(err.value) == f"{url}: wait selector '.never' did not appear within 4 s"


def test_wait_xpath_takes_css_or_xpath() -> None:
    assert wait_xpath("//p[@id='x']") == "//p[@id='x']"
    assert "late" in wait_xpath("p#late") and wait_xpath("p#late").startswith("descendant")
    with pytest.raises(ConfigError, match=r"render\.wait_for: '//p\[' is not a valid XPath"):
        wait_xpath("//p[")
