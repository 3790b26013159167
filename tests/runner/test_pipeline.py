"""The run pipeline on a synthetic site served by an in-process fake fetcher (WARC included).

End-to-end tests against the demo server (real HTTP, the CLI, kill -9) are in
``test_pipeline_demo.py``; these cover the verdicts, merging, resume and quarantine logic fast.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from anchorpath._config import PathsConfig, Settings
from anchorpath._errors import RunError
from anchorpath.fetch.mock import MockFetcher, Route
from anchorpath.fetch.result import FetchResult
from anchorpath.runner.drift.validate import RecordValidator, record_schema
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.pipeline import Run, crawl_site, run_site
from anchorpath.runner.progress import no_progress
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.commit import record_key
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.selectors.load import load_selector_file, parse_selector_data

from ..conftest import dump

ORIGIN = "http://synth.test"
PER_PAGE = 5
LONG = "이 원료는 안정성 자료가 추가되었습니다. 제조 방법은 동일합니다. " * 8


def _row(i: int, day: int) -> dict[str, str]:
    updated = "2024-03-0" + str(1 + (day if i == 3 else 0))
    return {
        "reg_no": f"R{i:03d}",
        "name": f"Substance {i}" + (" (new holder)" if i == 3 and day >= 2 else ""),
        "updated_on": updated,
        "remarks": LONG + str(i) + (" " if i == 4 and day >= 2 else ""),
    }


def day_rows(day: int) -> list[dict[str, str]]:
    ids = list(range(1, 13))
    if day >= 2:
        ids = [i for i in ids if i not in (7, 8)] + [20, 21]
    return [_row(i, day) for i in ids]


def render_site(day: int, *, template: str = "classic") -> dict[str, bytes]:
    rows = day_rows(day)
    pages: dict[str, bytes] = {}
    n_pages = (len(rows) + PER_PAGE - 1) // PER_PAGE
    label = {
        "classic": ("등록번호", "품목명", "변경일자", "비고"),
        "renewal": ("Reg.", "Product", "Changed", "Note"),
    }[template]
    for p in range(1, n_pages + 1):
        chunk = rows[(p - 1) * PER_PAGE : p * PER_PAGE]
        trs = "".join(
            f'<tr class="row"><td><a href="/view?id={r["reg_no"]}">{r["reg_no"]}</a></td>'
            f"<td>{r['name']}</td></tr>"
            for r in chunk
        )
        nxt = f'<a class="next" href="/list?page={p + 1}">다음</a>' if p < n_pages else ""
        cls = "list" if template == "classic" else "grid"
        pages[f"{ORIGIN}/list?page={p}"] = (
            f'<html><body><table class="{cls}"><tr><th>{label[0]}</th><th>{label[1]}</th></tr>'
            f"{trs}</table>{nxt}</body></html>"
        ).encode()
    for r in rows:
        if template == "classic":
            body = "".join(
                f"<tr><th>{lab}</th><td>{r[f]}</td></tr>"
                for lab, f in zip(label, ("reg_no", "name", "updated_on", "remarks"), strict=True)
            )
            html = f"<html><body><table class='view'>{body}</table></body></html>"
        else:
            body = "".join(
                f"<div class='f'><span>{lab}</span><em>{r[f]}</em></div>"
                for lab, f in zip(label, ("reg_no", "name", "updated_on", "remarks"), strict=True)
            )
            html = f"<html><body><section>{body}</section></body></html>"
        pages[f"{ORIGIN}/view?id={r['reg_no']}"] = html.encode()
    return pages


def _detail_field(label: str, **extra: Any) -> dict[str, Any]:
    return {
        "xpath": f"//th[normalize-space()='{label}']/following-sibling::td[1]",
        "anchor": {"kind": "label-text", "value": label},
        **extra,
    }


SELECTOR = {
    "schema_version": 1,
    "policy": {"basis": "robots"},
    "site": {"id": "synth", "name": "Synthetic notices"},
    "version": 1,
    "parent_version": None,
    "fetch": {
        "start_urls": ["http://127.0.0.1:8765/list?page=1"],
        "pagination": {"next_xpath": "//a[@class='next']/@href", "max_pages": 10},
        "max_depth": 2,
        "max_pages": 200,
    },
    "page_types": {
        "list": {
            "match": "/list",
            "record_root": "//table[@class='list']//tr[@class='row']",
            "emit": False,
            "follow": ["//table[@class='list']//tr[@class='row']/td[1]/a/@href"],
            "fields": {
                "reg_no": {
                    "xpath": "td[1]/a",
                    "type": "string",
                    "required": True,
                    "pattern": "^R\\d{3}$",
                },
                "name": {"xpath": "td[2]", "type": "string"},
            },
        },
        "detail": {
            "match": "/view",
            "fields": {
                "reg_no": _detail_field(
                    "등록번호", type="string", required=True, pattern="^R\\d{3}$"
                ),
                "name": _detail_field("품목명", type="string", required=True),
                "updated_on": _detail_field("변경일자", type="date", required=True),
                "remarks": _detail_field("비고", type="string"),
            },
        },
    },
    "key": ["reg_no"],
}


class Killed(BaseException):
    """Stands in for kill -9: nothing in the pipeline catches it."""


@pytest.fixture
def selectors_dir(tmp_path: Path) -> Path:
    d = tmp_path / "selectors"
    d.mkdir()
    (d / "synth.json").write_text(json.dumps(SELECTOR, ensure_ascii=False), encoding="utf-8")
    return d


def run(
    selectors_dir: Path,
    state: Path,
    pages: dict[str, bytes],
    log: list[str] | None = None,
    *,
    refuse: bool = False,
    fail: set[str] | None = None,
    hook: Callable[[str, int], None] | None = None,
    **kw: Any,
) -> RunResult:
    """One run of the synthetic site served by a MockFetcher; ``log`` collects every URL asked
    for, ``hook(url, n)`` runs after the n-th page is archived."""
    log = [] if log is None else log

    def route(url: str) -> Route:
        log.append(url)
        if refuse:
            return (403, {}, b"")
        if url not in pages or (fail and url in fail):
            return (404, {}, b"")
        return pages[url]

    def after(result: FetchResult) -> None:
        if hook is not None:
            hook(result.url, len(log))

    opts = RunOptions("synth", selectors_dir, state, base_url=ORIGIN, **kw)
    return run_site(opts, fetcher_factory=MockFetcher.factory(route, after=after))


def keys(result: RunResult, kind: str) -> list[str]:
    return [e.key for e in result.events if e.kind == kind]


def test_days_one_two_three(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    r1 = run(selectors_dir, state, render_site(1))
    assert (r1.verdict, r1.exit_code, r1.complete) == ("ok", 0, True)
    assert sorted(keys(r1, "new")) == [f"R{i:03d}" for i in range(1, 13)]
    assert r1.pages == 3 + 12
    assert (r1.run_dir / "report.json").is_file() and (r1.run_dir / "report.html").is_file()

    r2 = run(selectors_dir, state, render_site(2))
    assert r2.verdict == "ok"
    assert keys(r2, "new") == ["R020", "R021"]
    assert keys(r2, "withdrawn") == ["R007", "R008"]
    # R003 really changed; R004's remarks only got a trailing space (SimHash: no change)
    assert keys(r2, "changed") == ["R003"]
    changed = next(e for e in r2.events if e.kind == "changed")
    assert set(changed.fields) == {"name", "updated_on"}

    store = Store.in_state_dir(state)
    before = dump(store)
    r3 = run(selectors_dir, state, render_site(2, template="renewal"))
    assert (r3.verdict, r3.exit_code) == ("drift", 3)
    assert dump(store) == before  # nothing committed
    assert r3.bundle is not None and (r3.bundle / "bundle.json").is_file()
    assert (r3.run_dir / "alert.json").is_file()
    assert (r3.run_dir / "quarantine" / "records.jsonl").is_file()
    manifest = json.loads((r3.bundle / "bundle.json").read_text())
    assert manifest["last_good"] and manifest["failing"]
    assert "anchorpath author repair synth --bundle" in manifest["next_command"]
    runs = store.runs("synth")
    assert [r.verdict for r in runs] == ["drift", "ok", "ok"]


def test_refused_start_url_stops_the_site_and_changes_nothing(
    tmp_path: Path, selectors_dir: Path
) -> None:
    state = tmp_path / "state"
    run(selectors_dir, state, render_site(1))
    before = dump(Store.in_state_dir(state))
    r = run(selectors_dir, state, render_site(2), refuse=True)
    assert (r.verdict, r.exit_code) == ("stopped", 5)
    assert r.events == []
    assert dump(Store.in_state_dir(state)) == before


def test_partial_crawl_never_withdraws(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    run(selectors_dir, state, render_site(1))
    # Listing page 2 fails: its records are missing, but they are not withdrawn.
    r = run(selectors_dir, state, render_site(2), fail={f"{ORIGIN}/list?page=2"})
    assert r.verdict == "ok" and not r.complete
    assert keys(r, "withdrawn") == []
    assert r.errors and "list?page=2" in r.errors[0]


def test_url_mode_fetches_exactly_the_given_pages(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    run(selectors_dir, state, render_site(1))
    log: list[str] = []
    url = f"{ORIGIN}/view?id=R003"
    r = run(selectors_dir, state, render_site(2), log, urls=(url,))
    assert log == [url]
    assert keys(r, "changed") == ["R003"] and not keys(r, "withdrawn") and not r.complete


def test_empty_source(tmp_path: Path, selectors_dir: Path) -> None:
    pages = {
        f"{ORIGIN}/list?page=1": "<html><body><table class='list'><tr><th>등록번호</th>"
        "<th>품목명</th></tr></table></body></html>".encode()
    }
    # The list page type needs a label anchor for "empty" to be told from "broken".
    sel = json.loads((selectors_dir / "synth.json").read_text())
    sel["page_types"]["list"]["fields"]["reg_no"]["anchor"] = {
        "kind": "label-text",
        "value": "등록번호",
    }
    (selectors_dir / "synth.json").write_text(json.dumps(sel, ensure_ascii=False))
    r = run(selectors_dir, tmp_path / "state", pages)
    assert (r.verdict, r.exit_code) == ("empty-source", 0)
    assert dump(Store.in_state_dir(tmp_path / "state"))["records"] == []


def test_resume_after_kill_gives_the_same_database(tmp_path: Path, selectors_dir: Path) -> None:
    pages = render_site(1)
    ref = run(selectors_dir, tmp_path / "ref", pages)
    expected = dump(Store.in_state_dir(tmp_path / "ref"))

    state = tmp_path / "state"
    first: list[str] = []

    def kill_after_archiving(url: str, n: int) -> None:
        if n == 7:  # page 7 is in the WARC but not yet checkpointed
            raise Killed

    with pytest.raises(Killed):
        run(selectors_dir, state, pages, first, hook=kill_after_archiving)
    assert len(first) == 7
    cp = json.loads(next((state / "runs" / "synth").glob("*/checkpoint.json")).read_text())
    assert len(cp["crawl"]["done"]) == 6

    second: list[str] = []
    r = run(selectors_dir, state, pages, second)
    assert r.resumed and r.run_id == cp["run_id"]
    assert not set(second) & set(first)  # nothing archived in this run is fetched again
    assert r.replayed == 1
    assert len(first) + len(second) == ref.pages
    assert dump(Store.in_state_dir(state)) == expected
    assert [e.key for e in r.events] == [e.key for e in ref.events]
    assert not list((state / "runs" / "synth").glob("*/checkpoint.json"))


def test_live_lock_refuses_a_second_run(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    with SiteLock(state, "synth"), pytest.raises(RunError, match="already being run"):
        run(selectors_dir, state, render_site(1))


def test_invalid_rows_are_not_stored_nor_withdrawn(tmp_path: Path, selectors_dir: Path) -> None:
    state = tmp_path / "state"
    run(selectors_dir, state, render_site(1))
    pages = render_site(1)
    url = f"{ORIGIN}/view?id=R005"
    pages[url] = pages[url].replace(b"2024-03-01", b"someday")
    r = run(selectors_dir, state, pages)
    assert r.verdict == "ok" and r.invalid == 1
    assert r.events == []  # R005 is neither changed (to a bad date) nor withdrawn


def test_record_schema_derivation() -> None:
    sf = parse_selector_data(SELECTOR)
    schema = record_schema(sf.page_types["detail"])
    assert schema["required"] == ["reg_no", "name", "updated_on"]
    assert schema["properties"]["updated_on"] == {"type": "string", "format": "date"}
    assert schema["properties"]["reg_no"]["pattern"] == "^R\\d{3}$"
    assert schema["properties"]["remarks"]["anyOf"][0] == {"type": "null"}
    v = RecordValidator(sf.page_types)
    ok = {"reg_no": "R001", "name": "x", "updated_on": "2024-03-01", "remarks": None}
    assert v.problems("detail", ok) == []
    bad = {**ok, "reg_no": "X1", "updated_on": "2024-13-01"}
    probs = v.problems("detail", bad)
    assert any(p.startswith("reg_no:") for p in probs)
    assert any(p.startswith("updated_on:") for p in probs)
    assert v.problems("detail", {**ok, "name": None})[0].startswith("name:")


def test_record_key() -> None:
    assert record_key({"a": "x"}, ["a"]) == "x"
    assert record_key({"a": "x", "b": 2}, ["a", "b"]) == '["x",2]'
    assert record_key({"a": None}, ["a"]) is None


def test_database_is_wal(tmp_path: Path, selectors_dir: Path) -> None:
    run(selectors_dir, tmp_path / "state", render_site(1))
    db = sqlite3.connect(tmp_path / "state" / "anchorpath.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_committed_run_with_a_leftover_checkpoint_is_not_resumed(
    tmp_path: Path, selectors_dir: Path
) -> None:
    # Killed after the commit but before the checkpoint was removed.
    state = tmp_path / "state"
    r1 = run(selectors_dir, state, render_site(1))
    (r1.run_dir / "checkpoint.json").write_text(
        json.dumps(
            {
                "run_id": r1.run_id,
                "site": "synth",
                "started_at": "t",
                "selector_version": 1,
                "selector_sha256": "",
                "options": {},
            }
        )
    )
    log: list[str] = []
    r2 = run(selectors_dir, state, render_site(1), log)
    assert not r2.resumed and r2.run_id != r1.run_id
    assert r2.events == [] and len(log) == r1.pages
    assert not (r1.run_dir / "checkpoint.json").exists()


def test_changed_selector_file_abandons_the_unfinished_run(
    tmp_path: Path, selectors_dir: Path
) -> None:
    state = tmp_path / "state"

    def kill(url: str, n: int) -> None:
        if n == 3:
            raise Killed

    with pytest.raises(Killed):
        run(selectors_dir, state, render_site(1), hook=kill)
    sel = json.loads((selectors_dir / "synth.json").read_text())
    sel["version"] = 2
    (selectors_dir / "synth.json").write_text(json.dumps(sel, ensure_ascii=False))
    r = run(selectors_dir, state, render_site(1))
    assert not r.resumed and r.verdict == "ok" and r.selector_version == 2
    assert list((state / "runs" / "synth").glob("*/checkpoint.abandoned.json"))


# -- the drift gate never fails open -------------------------------------------------------------


def test_a_broken_drift_check_fails_the_run_instead_of_passing_it(
    tmp_path: Path, selectors_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from anchorpath.runner.drift import gate

    state = tmp_path / "state"
    run(selectors_dir, state, render_site(1))

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("drift check is broken")

    monkeypatch.setattr(gate, "check_drift", broken)
    before = dump(Store.in_state_dir(state))
    with pytest.raises(RuntimeError, match="drift check is broken"):
        run(selectors_dir, state, render_site(2))
    assert dump(Store.in_state_dir(state)) == before  # nothing committed


def test_a_missing_drift_module_fails_the_run_command(tmp_path: Path, selectors_dir: Path) -> None:
    """Without the drift check the ``run`` command cannot even load: it exits non-zero."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "sys.modules['anchorpath.runner.drift.check'] = None  # as if the module were broken\n"
        "from anchorpath.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    args = ["run", "synth", "--selectors", str(selectors_dir), "--state", str(tmp_path / "s")]
    out = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=120
    )
    assert out.returncode != 0
    assert "anchorpath.runner.drift.check" in out.stderr
    assert not (tmp_path / "s" / "anchorpath.sqlite").exists()


def test_paths_cache_dir_is_where_the_fetcher_caches(tmp_path: Path, selectors_dir: Path) -> None:
    seen: list[Path] = []
    inner = MockFetcher.factory(render_site(1))

    def factory(config: Any, warc: Path, cache: Path, on_event: Any) -> Any:
        seen.append(cache)
        return inner(config, warc, cache, on_event)

    state = tmp_path / "state"
    run_site(RunOptions("synth", selectors_dir, state, base_url=ORIGIN), fetcher_factory=factory)
    configured = Settings(paths=PathsConfig(cache_dir=str(tmp_path / "cache")))
    opts = RunOptions("synth", selectors_dir, state, base_url=ORIGIN, settings=configured)
    run_site(opts, fetcher_factory=factory)
    assert seen == [state / "cache", tmp_path / "cache"]


def test_a_new_run_is_checkpointed_by_its_crawl_before_any_page(
    tmp_path: Path, selectors_dir: Path
) -> None:
    """Preparing a new run writes nothing; its crawl saves the first checkpoint before it asks
    for a page, so a kill at the first page resumes that run."""
    state = tmp_path / "state"
    saved: list[dict[str, Any]] = []

    def kill_at_first_page(url: str, n: int) -> None:
        saved.append(json.loads(next((state / "runs").glob("*/*/checkpoint.json")).read_text()))
        raise Killed

    with pytest.raises(Killed):
        run(selectors_dir, state, render_site(1), hook=kill_at_first_page)
    assert saved[0]["attempts"] == 1 and saved[0]["crawl"]["done"] == []
    r = run(selectors_dir, state, render_site(1))
    assert r.resumed and r.run_id == saved[0]["run_id"]


def test_a_retried_crawl_of_a_new_run_continues_from_what_it_saved(
    tmp_path: Path, selectors_dir: Path
) -> None:
    """A crawl task sent again (a Dask retry) with the same new-run job resumes what the first
    attempt checkpointed instead of starting over."""
    state = tmp_path / "state"
    pages = render_site(1)
    store = Store(state / DB_NAME)
    opts = RunOptions("synth", selectors_dir, state, base_url=ORIGIN)
    sf_path = selectors_dir / "synth.json"
    prepared = Run(opts, load_selector_file(sf_path), sf_path, store, no_progress)
    job = prepared.prepare()
    assert not job.run_dir.exists() and job.fresh is not None
    first: list[str] = []

    def route(log: list[str], kill_at: int | None) -> Callable[[str], Route]:
        def answer(url: str) -> Route:
            log.append(url)
            if len(log) == kill_at:
                raise Killed
            return pages.get(url, (404, {}, b""))

        return answer

    with pytest.raises(Killed):
        crawl_site(job, MockFetcher.factory(route(first, 4)), no_progress)
    second: list[str] = []
    out = crawl_site(job, MockFetcher.factory(route(second, None)), no_progress)
    assert out.checkpoint.attempts == 2
    assert out.checkpoint.run_id == job.fresh.run_id
    assert not set(second) & set(first[:3])
    assert len(out.checkpoint.pages) == len(first[:3]) + len(second)
    store.close()
