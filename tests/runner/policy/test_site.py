"""Governance of whole runs over loopback: the permission basis a run needs, the report's
opening lines, and the ``stopped`` verdict (robots.txt turning to Disallow, the terms page
changing, repeated 429, a refused start URL) with ``resume`` lifting it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath._errors import RunError, SiteStopped
from anchorpath.cli import main
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.fetch.testing import FaultServer, ok, status, too_many
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_all import RunAllOptions, run_all
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import Store
from anchorpath.runner.store.governance import active_stop
from anchorpath.selectors.load import save_selector_file
from anchorpath.selectors.model import Policy

from ...conftest import dump
from ..conftest import fast, news_selector

PAGE = b"<html><body><h1>Storm batters coast</h1><p>text</p></body></html>"
ALLOW = "User-agent: *\nDisallow: /private/\n"
DENY = "User-agent: *\nDisallow: /private/\nDisallow: /a/\n"


ROBOTS = Policy(basis="robots")


def _selectors(tmp_path: Path, policy: Policy | None = ROBOTS) -> Path:
    sel = tmp_path / "selectors"
    sel.mkdir(exist_ok=True)
    sf = replace(news_selector(["Storm batters coast", "Bank raises rates", "Museum reopens"]))
    save_selector_file(replace(sf, policy=policy), sel / "news.json", bump=False)
    return sel


def _run(server: FaultServer, tmp_path: Path, **settings: object) -> RunResult:
    s = fast()
    if settings:
        s = replace(s, fetch=replace(s.fetch, **settings))
    return run_site(
        RunOptions(
            "news",
            tmp_path / "selectors",
            tmp_path / "state",
            base_url=server.base_url,
            settings=s,
        )
    )


def _cli(tmp_path: Path, *args: str) -> object:
    sel, state = str(tmp_path / "selectors"), str(tmp_path / "state")
    return CliRunner().invoke(main, [*args, "--selectors", sel, "--state", state])


def test_a_file_without_basis_is_refused_by_run_and_warned_by_validate_and_check(
    tmp_path: Path,
) -> None:
    sel = _selectors(tmp_path, policy=None)
    with FaultServer({"/a/1": ok(PAGE)}) as server:
        with pytest.raises(RunError, match=r"no policy\.basis"):
            _run(server, tmp_path)
        assert server.paths() == []  # nothing was fetched
    res = CliRunner().invoke(main, ["validate", str(sel / "news.json")])
    assert res.exit_code == 0 and "warning:" in res.stderr and "/policy/basis" in res.stderr
    res = CliRunner().invoke(main, ["check", str(sel / "news.json"), "--allow-empty"])
    assert res.exit_code == 0 and "/policy/basis" in res.stderr


def test_report_opens_with_basis_robots_hash_and_completion_formula(tmp_path: Path) -> None:
    _selectors(tmp_path)
    with FaultServer({"/a/1": ok(PAGE)}, robots=ALLOW) as server:
        r = _run(server, tmp_path)
    assert r.verdict == "ok", r.reason
    md = (r.run_dir / "report.md").read_text(encoding="utf-8")
    head = md.split("**Verdict")[0]
    digest = hashlib.sha256(ALLOW.encode()).hexdigest()
    assert "- basis: robots" in head
    assert "robots.txt http://127.0.0.1: fetched 20" in head and f"sha256 {digest}" in head
    assert (
        "completion rate: valid records ÷ URLs allowed and attempted = 1 ÷ 1 = 100.00% "
        "(robots-excluded: 0, gone 404/410: 0, not counted)" in head
    )
    report = json.loads((r.run_dir / "report.json").read_text(encoding="utf-8"))
    assert report["policy"]["robots"][0]["sha256"] == digest
    assert report["policy"]["completion"]["rate"] == 1.0
    html = (r.run_dir / "report.html").read_text(encoding="utf-8")
    assert html.index("basis: robots") < html.index("Verdict:")


def test_robots_turning_to_disallow_stops_the_site_until_resume(tmp_path: Path) -> None:
    _selectors(tmp_path)
    with FaultServer({"/a/1": ok(PAGE)}, robots=ALLOW) as server:
        assert _run(server, tmp_path).verdict == "ok"
        store = Store.in_state_dir(tmp_path / "state")
        before = dump(store)
        server.route("/robots.txt", ok(DENY.encode(), "text/plain"))
        r = _run(server, tmp_path)
        assert (r.verdict, r.exit_code) == ("stopped", 5)
        assert r.reason and "robots.txt of http://127.0.0.1 changed" in r.reason
        assert "http://127.0.0.1/a/1" in r.reason
        md = (r.run_dir / "report.md").read_text(encoding="utf-8")
        assert "```diff" in md and "+Disallow: /a/" in md
        assert dump(store) == before  # the store is untouched
        # run refuses the stopped site, with its own exit code, fetching nothing
        requests = len(server.paths())
        with pytest.raises(SiteStopped, match="anchorpath resume news"):
            _run(server, tmp_path)
        res = _cli(tmp_path, "run", "news")
        assert res.exit_code == 5 and "is stopped since" in res.stderr
        assert "Traceback" not in res.output and len(server.paths()) == requests
        # resume needs a name and a reason; it is recorded
        res = _cli(tmp_path, "resume", "news", "--by", "kim")
        assert res.exit_code == 2
        res = _cli(tmp_path, "resume", "news", "--by", "kim", "--reason", "owner agreed")
        assert res.exit_code == 0, res.output
        assert active_stop(store, "news") is None
        row = store.query("SELECT resumed_by, resume_reason FROM stops WHERE site = 'news'")
        assert row == [("kim", "owner agreed")]
        res = _cli(tmp_path, "resume", "news", "--by", "kim", "--reason", "again")
        assert res.exit_code == 1 and "not stopped" in res.output
        # after resume the new robots.txt is the reference: the start URL is simply refused
        after = _run(server, tmp_path)
        assert after.verdict == "blocked", after.reason
    store.close()


def test_repeated_429_past_retry_after_stops_the_site(tmp_path: Path) -> None:
    _selectors(tmp_path)
    with FaultServer({"/a/1": too_many(0)}) as server:
        r = _run(server, tmp_path, circuit_429_threshold=3, max_attempts=5)
        assert server.paths().count("/a/1") == 3
    assert (r.verdict, r.exit_code) == ("stopped", 5)
    assert r.reason and "rate-limiting" in r.reason and "3 consecutive HTTP 429" in r.reason


def test_changed_terms_stop_the_site_before_any_page(tmp_path: Path) -> None:
    terms = "http://127.0.0.1/terms"
    _selectors(tmp_path, Policy(basis="written-permission", terms_url=terms))
    page = b"<html><body><script>var t = 1;</script><p>Use the data %s.</p></body></html>"
    with FaultServer({"/a/1": ok(PAGE), "/terms": ok(page % b"freely")}) as server:
        first = _run(server, tmp_path)
        assert first.verdict == "ok"
        # whitespace and scripts do not count: the same text is the same terms
        server.route("/terms", ok((page % b"freely").replace(b"var t = 1", b"var t = 2")))
        assert _run(server, tmp_path).verdict == "ok"
        server.route("/terms", ok(page % b"for research only"))
        n = len(server.paths())
        r = _run(server, tmp_path)
        assert server.paths()[n:] == ["/robots.txt", "/terms"]  # nothing else fetched
    assert (r.verdict, r.exit_code) == ("stopped", 5)
    assert r.reason and "terms page http://127.0.0.1/terms changed" in r.reason
    report = json.loads((r.run_dir / "report.json").read_text(encoding="utf-8"))
    assert report["policy"]["terms"]["url"] == terms and report["policy"]["stop"]["cause"]


def test_run_all_refuses_a_stopped_site_and_exits_with_its_code(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    with DemoServer(day=1) as good, DemoServer(day=1, mode="refuse") as refusing:
        write_site_file(sel, good.base_url, site_id="good", max_pages=3)
        write_site_file(sel, refusing.base_url, site_id="refusing")
        first = run_all(RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast()))
        assert {s.site: s.verdict for s in first.sites} == {"good": "ok", "refusing": "stopped"}
        second = run_all(RunAllOptions(selectors_dir=sel, state_dir=state, settings=fast()))
    by_site = {s.site: s for s in second.sites}
    assert by_site["refusing"].verdict == "stopped" and second.exit_code == 5
    assert "is stopped since" in str(by_site["refusing"].reason)
    assert by_site["good"].verdict == "ok"


def test_a_status_page_for_robots_is_no_robots_change(tmp_path: Path) -> None:
    """A 404 robots.txt after a parsed one lifts restrictions: nothing is lost, no stop."""
    _selectors(tmp_path)
    with FaultServer({"/a/1": ok(PAGE)}, robots=ALLOW) as server:
        assert _run(server, tmp_path).verdict == "ok"
        server.route("/robots.txt", status(404))
        r = _run(server, tmp_path)
    assert r.verdict == "ok", r.reason
