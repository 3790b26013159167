"""The lifecycle benchmark's generator, server and truth, and a few days of the harness driving
the real CLI (bench/lifecycle.py)."""

from __future__ import annotations

import importlib.util
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load() -> ModuleType:
    # bench/ is not a package: load the module by path, as the benchmark script does.
    spec = importlib.util.spec_from_file_location("lifecycle_bench", BENCH / "lifecycle.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["lifecycle_bench"] = module
    spec.loader.exec_module(module)
    return module


m = _load()


def _get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:  # loopback only
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_the_story_has_every_event_the_issue_names() -> None:
    days = {d.day: d for d in m.STORY}
    assert sorted(days) == list(range(1, 31))
    assert {d.template for d in m.STORY if d.template} == {"renamed", "restructured", "relaid"}
    assert {d.repair for d in m.STORY if d.repair} == {"auto", "answer", "llm"}
    assert any(d.paused for d in m.STORY) and any(d.robots_deny for d in m.STORY)
    assert any(d.rekey for d in m.STORY) and any(d.punctuation for d in m.STORY)
    assert any(d.deleted for d in m.STORY) and any(d.gone for d in m.STORY)
    quiet = [d.day for d in m.STORY if d.story.startswith("quiet week")]
    assert len(quiet) == 7


def test_board_pages_are_euc_kr_label_tables_and_the_generator_is_deterministic() -> None:
    a, b = m.Site(m.BOARD), m.Site(m.BOARD)
    for plan in m.story(4):
        snap_a, snap_b = a.advance(plan), b.advance(plan)
    assert m.pages_of(m.BOARD, snap_a) == m.pages_of(m.BOARD, snap_b)
    pages = m.pages_of(m.BOARD, snap_a)
    rid, rec = snap_a.records[0]
    html = pages[m.detail_url(m.BOARD, rid)].decode("euc-kr")
    assert "charset=euc-kr" in html and '<th scope="row">담당부서</th>' in html
    assert rec["notice_no"] in html
    assert len(rec["body"]) >= 200  # long enough for the store's SimHash comparison


def test_truth_events_ignore_a_punctuation_only_edit_and_see_deletions() -> None:
    site = m.Site(m.SHOP)
    day1 = site.advance(m.STORY[0])
    site.advance(m.STORY[1])
    site.advance(m.STORY[2])
    day4 = site.advance(m.STORY[3])
    assert day4.punctuated
    te = m.truth_events(m.SHOP, day1, day4, "name")
    (punct,) = day4.punctuated
    name = dict(day4.records)[punct]["name"]
    assert "description" not in te.changed.get(name, frozenset())
    assert len(te.withdrawn) == 2 and len(te.new) == 2  # a 404 and a 410; two added


def test_the_server_answers_304_to_its_own_validators_and_503_when_paused() -> None:
    site = m.Site(m.SHOP)
    server = m.SiteServer(site)
    try:
        server.show(site.advance(m.STORY[0]))
        url = server.base_url + m.list_url(m.SHOP, 1)
        code, headers, body = _get(url)
        assert code == 200 and body
        assert _get(url, {"If-None-Match": headers["ETag"]})[0] == 304
        assert _get(url, {"If-Modified-Since": headers["Last-Modified"]})[0] == 304
        server.show(site.advance(m.STORY[1]))  # two records added: page 1 changed
        assert _get(url, {"If-None-Match": headers["ETag"]})[0] == 200
        deleted = next(iter(site.removed))
        assert _get(server.base_url + m.detail_url(m.SHOP, deleted))[0] == 404
        server.show(site.advance(m.Day(3, "pause", paused=True)))
        code, headers, _ = _get(url)
        assert code == 503 and headers["Retry-After"]
    finally:
        server.stop()


@pytest.mark.slow
def test_three_days_through_the_real_cli_match_the_truth(tmp_path: Path) -> None:
    # authoring + all new; added/edited/deleted; a day of 304s (EUC-KR board)
    days = m.live("board", m.story(3), tmp_path / "board")
    assert [d.verdicts for d in days] == [["ok"], ["ok"], ["ok"]]
    assert all(d.events_ok for d in days), [d.events_note for d in days]
    assert [(d.lost, d.extra, d.wrong, d.wrong_committed) for d in days] == [(0, 0, 0, 0)] * 3
    assert days[2].status_counts.get("304", 0) >= 15  # every page unchanged
    totals = m.totals(days)
    assert totals["false_alarms"] == 0 and totals["wrong_values_committed"] == 0


#: The shortest story of issue 20: authored, a day of 304s, a redesign, the repair, ok again.
SHORT_STORY = (
    m.Day(1, "authoring, first run"),
    m.Day(2, "nothing changed: a day of 304s"),
    m.Day(3, "redesign: labels renamed, a row added", template="renamed", repair="auto"),
    m.Day(4, "1 added", added=1),
)


@pytest.mark.slow
def test_a_day_of_304s_then_drift_then_repair_then_ok(tmp_path: Path) -> None:
    days = m.live("shop", SHORT_STORY, tmp_path / "shop")
    assert days[1].status_counts.get("304", 0) >= 15
    assert days[2].truth_verdict == "drift"
    assert days[2].verdicts == ["drift", "ok"], days[2].actions
    assert days[2].repairs_adopted == 1
    assert days[3].verdicts == ["ok"] and days[3].events_ok, days[3].events_note
    assert sum(d.wrong_committed for d in days) == 0
