"""Verdicts of whole runs over loopback (polite fetcher, refusal check, extraction, wall check,
gate): a redesign under a header login box is ``drift``, never ``blocked``; a real login wall
is ``blocked``; pages that match no page type never make an ``ok`` run or a baseline."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from anchorpath._config import Settings
from anchorpath.fetch.testing import FaultServer, ok
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.selectors.load import save_selector_file

from .conftest import news_selector

HEADER = (
    "<div id='masthead'><a href='/'>Daily News</a><form action='/session' method='post'>"
    "<input name='user'><input type='password' name='pw'><input type='submit'></form></div>"
)
TEXT = "<p>" + "The council met on Tuesday and approved the budget for the coming year. " * 5
OLD = "<html><body>{header}<div id='story'><h1 class='headline'>{title}</h1>{text}</p></div></body></html>"
NEW = "<html><body>{header}<div id='content'><h2 class='title'>{title}</h2>{text}</p></div></body></html>"
LOGIN = (
    "<html><head><title>Sign in</title></head><body><main><h1>Sign in</h1>"
    "<form method='post'><input name='email'><input type='password' name='pw'>"
    "<button>Sign in</button></form></main></body></html>"
)
TITLES = ["Storm batters coast", "Bank raises rates", "Museum reopens", "Bridge opens"]


def _selectors(tmp_path: Path) -> Path:
    sel = tmp_path / "selectors"
    sel.mkdir()
    save_selector_file(news_selector(TITLES[:3], "//h1[@class='headline']"), sel / "news.json")
    return sel


def _settings() -> Settings:
    fast = replace(
        Settings().fetch,
        min_delay=0.0,
        delay_factor=0.0,
        allow_private_networks=True,
        contact="tests@anchorpath.invalid",
    )
    return replace(Settings(), fetch=fast)


def _run(server: FaultServer, tmp_path: Path, paths: list[str]) -> RunResult:
    opts = RunOptions(
        "news",
        _selectors(tmp_path) if not (tmp_path / "selectors").exists() else tmp_path / "selectors",
        tmp_path / "state",
        urls=tuple(server.url(p) for p in paths),
        settings=_settings(),
    )
    return run_site(opts)


def test_redesign_under_a_header_login_box_is_drift_not_blocked(tmp_path: Path) -> None:
    routes = {
        f"/a/{i}": ok(OLD.format(header=HEADER, title=t, text=TEXT).encode())
        for i, t in enumerate(TITLES)
    }
    routes |= {
        f"/a/new{i}": ok(NEW.format(header=HEADER, title=t, text=TEXT).encode())
        for i, t in enumerate(TITLES)
    }
    with FaultServer(routes) as server:
        first = _run(server, tmp_path, ["/a/0", "/a/1"])
        assert first.verdict == "ok", first.reason
        redesigned = _run(server, tmp_path, ["/a/new2", "/a/new3"])
    assert (redesigned.verdict, redesigned.exit_code) == ("drift", 3), redesigned.reason
    assert redesigned.drift is not None and "headline" in redesigned.drift.fields


def test_full_page_login_before_any_page_stops_the_site(tmp_path: Path) -> None:
    with FaultServer({"/a/1": ok(LOGIN.encode())}) as server:
        result = _run(server, tmp_path, ["/a/1"])
    assert (result.verdict, result.exit_code) == ("stopped", 5)
    assert result.reason is not None and "login-wall" in result.reason


def test_pages_matching_no_page_type_are_drift_and_no_baseline(tmp_path: Path) -> None:
    page = OLD.format(header="", title="Storm batters coast", text=TEXT).encode()
    with FaultServer({"/other/1": ok(page), "/a/1": ok(page)}) as server:
        stray = _run(server, tmp_path, ["/other/1"])
        assert (stray.verdict, stray.records) == ("drift", 0)
        assert stray.reason == "no page type matched any of the 1 fetched page(s)"
        # it did not become the baseline: the next run is still compared with the examples
        after = _run(server, tmp_path, ["/a/1"])
    assert after.verdict == "ok", after.reason
    assert after.drift is not None and after.drift.baseline_runs == 1
