"""``anchorpath accept``: a person accepts a quarantined drift run (a false alarm).

An in-process synthetic site (no network): a notice board whose every row carries the same
site notice. The site rewrites that notice one day: the drift gate (which favours recall)
calls it drift. Accepting the run commits its records as an ok run would have, its statistics
join the baseline, and the next identical run passes the gate. Every refusal is checked too.
"""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

from anchorpath.cli import main
from anchorpath.cli.run import print_summary
from anchorpath.fetch.mock import MockFetcher, Route
from anchorpath.runner.accept import AcceptRefused, accept_run
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import Store

from ..conftest import dump

ORIGIN = "http://synth.test"
PER_PAGE = 10
OLD_NOTICE = "정상 등록"
NEW_NOTICE = "Registered — under periodic review since the 2024 amendment (see notice 12)"

SELECTOR: dict[str, Any] = {
    "schema_version": 1,
    "policy": {"basis": "robots"},
    "site": {"id": "board", "name": "Synthetic board"},
    "version": 1,
    "parent_version": None,
    "fetch": {
        "start_urls": ["http://127.0.0.1:8765/list?page=1"],
        "pagination": {"next_xpath": "//a[@class='next']/@href", "max_pages": 10},
        "max_depth": 1,
        "max_pages": 50,
    },
    "page_types": {
        "list": {
            "match": "/list",
            "record_root": "//table[@class='list']//tr[@class='row']",
            "emit": True,
            "fields": {
                "reg_no": {
                    "xpath": "td[1]",
                    "type": "string",
                    "required": True,
                    "pattern": "^R\\d{3}$",
                },
                "name": {"xpath": "td[2]", "type": "string", "required": True},
                "updated_on": {"xpath": "td[3]", "type": "date"},
                "status": {"xpath": "td[4]", "type": "string"},
            },
        },
    },
    "key": ["reg_no"],
}


def site(ids: range | list[int], notice: str = OLD_NOTICE) -> dict[str, bytes]:
    rows = [
        (
            f"R{i:03d}",
            f"Substance {i} {'alpha beta gamma'[: i % 11 + 3]}",
            f"2024-03-{i % 27 + 1:02d}",
        )
        for i in ids
    ]
    pages: dict[str, bytes] = {}
    n_pages = (len(rows) + PER_PAGE - 1) // PER_PAGE
    for p in range(1, n_pages + 1):
        trs = "".join(
            f'<tr class="row"><td>{r}</td><td>{n}</td><td>{d}</td><td>{notice}</td></tr>'
            for r, n, d in rows[(p - 1) * PER_PAGE : p * PER_PAGE]
        )
        nxt = f'<a class="next" href="/list?page={p + 1}">다음</a>' if p < n_pages else ""
        pages[f"{ORIGIN}/list?page={p}"] = (
            f'<html><body><table class="list">{trs}</table>{nxt}</body></html>'
        ).encode()
    return pages


@pytest.fixture
def selectors_dir(tmp_path: Path) -> Path:
    d = tmp_path / "selectors"
    d.mkdir()
    (d / "board.json").write_text(json.dumps(SELECTOR, ensure_ascii=False), encoding="utf-8")
    return d


def run(
    selectors_dir: Path,
    state: Path,
    pages: dict[str, bytes],
    *,
    refuse: bool = False,
    fail: set[str] | None = None,
) -> RunResult:
    def route(url: str) -> Route:
        if refuse:
            return (403, {}, b"")
        if fail and url in fail:
            return (503, {}, b"")
        return pages.get(url, (404, {}, b""))

    return run_site(
        RunOptions("board", selectors_dir, state, base_url=ORIGIN),
        fetcher_factory=MockFetcher.factory(route),
    )


DAY1 = range(1, 31)
DAY2 = range(1, 33)
# Day 3: R001 and R002 withdrawn, R040 new, and the site notice on every row rewritten.
DAY3 = [*range(3, 33), 40]


def two_good_days(selectors_dir: Path, state: Path) -> None:
    for ids in (DAY1, DAY2):
        assert run(selectors_dir, state, site(ids)).verdict == "ok"


def false_alarm(selectors_dir: Path, state: Path, **kw: Any) -> RunResult:
    r = run(selectors_dir, state, site(DAY3, NEW_NOTICE), **kw)
    assert (r.verdict, r.exit_code) == ("drift", 3)
    assert r.drift is not None and set(r.drift.fields) == {"status"}
    return r


def accept(selectors_dir: Path, state: Path, run_id: str, by: str = "tester") -> RunResult:
    return accept_run("board", run_id, selectors_dir=selectors_dir, state_dir=state, by=by)


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_accepted_false_alarm_is_committed_and_joins_the_baseline(
    tmp_path: Path, selectors_dir: Path
) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    store = Store.in_state_dir(state)
    before = dump(store)
    r3 = false_alarm(selectors_dir, state)
    assert dump(store) == before  # quarantined: nothing committed yet
    assert (r3.run_dir / "quarantine" / "accept.json").is_file()

    a = accept(selectors_dir, state, r3.run_id, by="kim")
    assert (a.verdict, a.exit_code, a.complete) == ("accepted", 0, True)
    assert [e.key for e in a.events if e.kind == "new"] == ["R040"]
    assert [e.key for e in a.events if e.kind == "withdrawn"] == ["R001", "R002"]
    changed = [e for e in a.events if e.kind == "changed"]
    assert len(changed) == 30 and all(set(e.fields) == {"status"} for e in changed)
    assert changed[0].fields["status"] == (OLD_NOTICE, NEW_NOTICE)

    # Stored exactly as an ok run stores its events: the current records are day 3's.
    assert store.events(r3.run_id) == a.events
    current = store.current("board")
    assert sorted(current) == [f"R{i:03d}" for i in DAY3]
    assert {rec.values["status"] for rec in current.values()} == {NEW_NOTICE}
    row = next(r for r in store.runs("board") if r.id == r3.run_id)
    assert (row.verdict, row.accepted_by, row.complete) == ("accepted", "kim", True)
    assert row.accepted_at and (row.new, row.changed, row.withdrawn) == (1, 30, 2)
    assert isinstance(row.stats, dict) and row.stats["run_id"] == r3.run_id
    assert r3.run_id in [r.id for r in store.runs("board", verdicts=["ok", "accepted"])]

    # The report says so.
    report = json.loads((r3.run_dir / "report.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "accepted" and report["accepted_by"] == "kim"
    assert report["drift_verdict"] == "drift" and report["counts"]["changed"] == 30
    assert "accepted_by: kim" in (r3.run_dir / "report.md").read_text(encoding="utf-8")
    assert "Verdict: accepted" in (r3.run_dir / "report.html").read_text(encoding="utf-8")

    # The same page again: the accepted run is in the baseline, so no alarm, no event.
    r4 = run(selectors_dir, state, site(DAY3, NEW_NOTICE))
    assert (r4.verdict, r4.exit_code, r4.events) == ("ok", 0, [])
    assert r4.drift is not None and r4.drift.baseline_runs == 3


def test_accepting_an_incomplete_crawl_withdraws_nothing(
    tmp_path: Path, selectors_dir: Path
) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    # Listing page 3 fails, so page 4 is never reached: R023… and R040 are not seen.
    r3 = false_alarm(selectors_dir, state, fail={f"{ORIGIN}/list?page=3"})
    a = accept(selectors_dir, state, r3.run_id)
    assert a.complete is False
    assert [e for e in a.events if e.kind == "withdrawn"] == []
    assert {e.kind for e in a.events} == {"changed"}
    current = Store.in_state_dir(state).current("board")
    assert {"R001", "R002", "R023", "R032"} <= set(current)  # kept, not withdrawn
    assert current["R023"].values["status"] == OLD_NOTICE  # not seen: its stored version stays


def test_an_older_drift_run_may_be_accepted_while_a_newer_one_waits(
    tmp_path: Path, selectors_dir: Path
) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    first = false_alarm(selectors_dir, state)
    second = false_alarm(selectors_dir, state)
    assert accept(selectors_dir, state, first.run_id).verdict == "accepted"
    # The newer one now compares with a store that already has day 3: nothing to record.
    assert accept(selectors_dir, state, second.run_id).events == []


def test_cli_accepts_and_prints_who(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    r3 = false_alarm(selectors_dir, state)
    res = cli(
        "accept",
        "board",
        r3.run_id,
        "--by",
        "kim",
        "--selectors",
        str(selectors_dir),
        "--state",
        str(state),
    )
    assert res.exit_code == 0, res.output
    assert "accepted by kim" in res.output and "accepted" in res.output


def _refusal(selectors_dir: Path, state: Path, run_id: str, match: str) -> None:
    with pytest.raises(AcceptRefused, match=match):
        accept(selectors_dir, state, run_id)
    res = cli("accept", "board", run_id, "--selectors", str(selectors_dir), "--state", str(state))
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in res.output


def test_refuses_an_unknown_run(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    _refusal(selectors_dir, state, "20260101T000000Z-000000", "has no run")


def test_refuses_an_ok_run(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    ok = Store.in_state_dir(state).runs("board")[0]
    _refusal(selectors_dir, state, ok.id, "verdict 'ok': only drift runs")


def test_refuses_a_stopped_run(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    store = Store.in_state_dir(state)
    before = dump(store)
    r = run(selectors_dir, state, site(DAY3), refuse=True)  # 403 on the start URL
    assert r.verdict == "stopped"
    _refusal(selectors_dir, state, r.run_id, "stopped by the site .* can never be accepted")
    assert dump(store) == before


def test_refuses_a_run_accepted_twice(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    r3 = false_alarm(selectors_dir, state)
    accept(selectors_dir, state, r3.run_id, by="kim")
    store = Store.in_state_dir(state)
    after = dump(store)
    _refusal(selectors_dir, state, r3.run_id, "already accepted by kim at ")
    assert dump(store) == after


def test_refuses_to_rewrite_history(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    r3 = false_alarm(selectors_dir, state)
    # The notice was put back the next day: that run is committed after the drift run.
    r4 = run(selectors_dir, state, site(DAY3))
    assert r4.verdict == "ok"
    store = Store.in_state_dir(state)
    after = dump(store)
    _refusal(
        selectors_dir, state, r3.run_id, f"older than committed run {r4.run_id}.*rewrite history"
    )
    assert dump(store) == after


def test_drift_summary_names_each_field_once_and_offers_accept(
    tmp_path: Path, selectors_dir: Path
) -> None:
    state = tmp_path / "state"
    two_good_days(selectors_dir, state)
    r3 = false_alarm(selectors_dir, state)
    buffer = io.StringIO()
    print_summary(r3, Console(file=buffer, width=200))
    out = buffer.getvalue()
    evidence = r3.drift.fields["status"][0] if r3.drift else ""
    assert not evidence.startswith("status")  # the gate no longer repeats the name
    assert f"status: {evidence[:60]}" in out
    assert f"anchorpath accept board {r3.run_id}" in out


def test_old_database_gets_the_accept_columns(tmp_path: Path) -> None:
    db = tmp_path / "anchorpath.sqlite"
    con = sqlite3.connect(db)
    con.execute(
        "CREATE TABLE runs (id TEXT PRIMARY KEY, site TEXT NOT NULL, started_at TEXT NOT NULL, "
        "finished_at TEXT, verdict TEXT NOT NULL, selector_version INTEGER, warc_path TEXT, "
        "run_dir TEXT, complete INTEGER NOT NULL DEFAULT 0, pages INTEGER NOT NULL DEFAULT 0, "
        "records INTEGER NOT NULL DEFAULT 0, new INTEGER NOT NULL DEFAULT 0, "
        "changed INTEGER NOT NULL DEFAULT 0, withdrawn INTEGER NOT NULL DEFAULT 0, "
        "stats_json TEXT, error TEXT)"
    )
    con.execute("INSERT INTO runs (id, site, started_at, verdict) VALUES ('r1', 's', 't', 'ok')")
    con.commit()
    con.close()
    with Store(db) as store:
        (row,) = store.runs("s")
    assert (row.verdict, row.accepted_by, row.accepted_at) == ("ok", None, None)


def test_one_accept_makes_the_next_identical_run_ok_on_a_young_baseline(tmp_path: Path) -> None:
    """The first runs are checked against the selector file's examples (a young baseline); when
    the live site differs from the authoring pages, one accept is enough."""
    data = json.loads(json.dumps(SELECTOR))
    fields = data["page_types"]["list"]["fields"]
    fields["reg_no"]["examples"] = ["R001", "R002", "R003"]
    fields["name"]["examples"] = ["Substance 1 alph", "Substance 2 alph", "Substance 3 alph"]
    fields["status"]["examples"] = [OLD_NOTICE] * 3
    sel = tmp_path / "selectors"
    sel.mkdir()
    (sel / "board.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    state = tmp_path / "state"
    first = run(sel, state, site(DAY1, NEW_NOTICE))
    assert first.verdict == "drift" and first.drift is not None and "status" in first.drift.fields
    accept(sel, state, first.run_id)
    again = run(sel, state, site(DAY1, NEW_NOTICE))
    assert (again.verdict, again.events) == ("ok", []), again.drift and again.drift.to_dict()
