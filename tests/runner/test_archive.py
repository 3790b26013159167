"""A run's pages as last archived: a ``304 Not Modified`` followed back to the body it stands for.

Real demo runs on one loopback server (conditional requests, so a day without changes is a day
of 304s), then everything that reads a run's pages: the alert bundle and its prompt, the repair
from it, ``diff --state`` and a resumed run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from anchorpath.demo import DemoServer, write_site_file
from anchorpath.fetch.result import FetchResult
from anchorpath.runner.archive import last_archived
from anchorpath.runner.crawl.pages import default_fetcher
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import Store

from .conftest import fast

SITE = "mfds-dmf"
EMPTY_SHA = hashlib.sha256(b"").hexdigest()


class Killed(BaseException):
    """Stands in for kill -9: nothing in the pipeline catches it."""


def run_day(sel: Path, state: Path, srv: DemoServer, day: int, **kw: Any) -> RunResult:
    srv.set_day(day)
    return run_site(RunOptions(SITE, sel, state, base_url=srv.base_url, settings=fast()), **kw)


@pytest.fixture(scope="module")
def story(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Day 1, day 2, day 2 again (every page a 304), then day 3 (template change: drift)."""
    from anchorpath.review.sources import latest_run_pages
    from anchorpath.selectors.load import load_selector_file

    root = tmp_path_factory.mktemp("story304")
    sel, state = root / "selectors", root / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    with DemoServer(day=1) as srv:
        days = [run_day(sel, state, srv, d) for d in (1, 2, 2)]
        run_id, state_pages = latest_run_pages(
            state, SITE, [load_selector_file(sel / f"{SITE}.json")]
        )
        drift = run_day(sel, state, srv, 3)
    return {
        "sel": sel,
        "state": state,
        "days": days,
        "state_run": run_id,
        "state_pages": state_pages,
        "drift": drift,
    }


@pytest.mark.slow
def test_a_day_of_304s_archives_no_body(story: dict[str, Any]) -> None:
    quiet = story["days"][2]
    assert [d.verdict for d in story["days"]] == ["ok", "ok", "ok"]
    assert quiet.fetch_counters.get("not_modified", 0) == quiet.pages  # the premise
    pages = {u: p for u, p in last_archived(quiet.run_dir).items() if not u.endswith("/robots.txt")}
    assert len(pages) == quiet.pages and all(p.status == 304 and p.body for p in pages.values())
    # each body comes from the run that archived it, and is what it archived
    day2 = story["days"][1].run_dir
    assert {p.body_from for p in pages.values()} <= {str(story["days"][0].run_dir), str(day2)}


@pytest.mark.slow
def test_the_bundle_after_a_day_of_304s_holds_the_last_good_pages(story: dict[str, Any]) -> None:
    drift = story["drift"]
    assert drift.verdict == "drift" and drift.bundle is not None
    manifest = json.loads((drift.bundle / "bundle.json").read_text(encoding="utf-8"))
    assert manifest["last_good"]
    assert all(entry["sha256"] != EMPTY_SHA for entry in manifest["last_good"])
    for entry in manifest["last_good"]:
        assert (drift.bundle / entry["file"]).stat().st_size > 0
    records = json.loads((drift.bundle / "last_good" / "records.json").read_text("utf-8"))
    assert records and all(r.get("reg_no") for r in records if r["_page_type"] == "detail")
    prompt = (drift.bundle / "prompt.md").read_text(encoding="utf-8")
    assert "last good values: " in prompt
    assert ": null" not in prompt.split("## Failing pages", 1)[1].split("```markdown", 1)[0]


@pytest.mark.slow
def test_repair_from_the_bundle_after_a_day_of_304s_is_adopted(story: dict[str, Any]) -> None:
    from anchorpath.authoring.repair.pipeline import repair_from_bundle

    result = repair_from_bundle(story["drift"].bundle, selectors_dir=story["sel"], dry_run=True)
    assert result.adopted and result.changes
    assert not [n for n in result.notes if "unchanged" in n or "no last good" in n]


@pytest.mark.slow
def test_diff_state_reads_the_pages_a_day_of_304s_stands_for(story: dict[str, Any]) -> None:
    assert story["state_run"] == story["days"][2].run_id
    pages = story["state_pages"]
    assert len(pages) == story["days"][2].pages
    assert all(p.body for p in pages)


@pytest.mark.slow
def test_a_resumed_run_reads_its_archived_304s_without_fetching_them_again(
    tmp_path: Path,
) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    with DemoServer(day=1) as srv:
        ref = run_day(sel, state, srv, 1)
        fetched: list[str] = []

        def killing(*args: Any) -> Any:
            fetcher = default_fetcher(*args)
            real = fetcher.fetch

            def fetch(url: str, **kw: Any) -> FetchResult:
                res = real(url, **kw)
                fetched.append(url)
                if len(fetched) == 5:  # archived (a 304), not yet checkpointed
                    raise Killed
                return res

            fetcher.fetch = fetch  # type: ignore[method-assign]
            return fetcher

        with pytest.raises(Killed):
            run_day(sel, state, srv, 1, fetcher_factory=killing)
        before = len(srv.request_log)
        again = run_day(sel, state, srv, 1)
        asked = [path for _t, _m, path, _s in srv.request_log[before:]]
    assert again.resumed and again.verdict == "ok"
    assert again.pages == ref.pages
    # none of the five pages archived before the kill was asked for again
    assert not {u.split(srv.base_url, 1)[1] for u in fetched} & set(asked)
    with Store.in_state_dir(state) as store:
        assert len(store.current(SITE)) == ref.records


def _archive(run_dir: Path, answers: list[tuple[str, int, str | None, bytes]]) -> None:
    from anchorpath.fetch.warc import WarcWriter

    run_dir.mkdir(parents=True)
    with WarcWriter(run_dir / "pages-00.warc.gz") as w:
        for url, status, tag, body in answers:
            headers = [("Content-Type", "text/html")] + ([("ETag", tag)] if tag else [])
            w.write_exchange(
                url=url,
                method="GET",
                request_headers=[],
                status=status,
                reason="OK" if status == 200 else "Not Modified",
                response_headers=headers,
                payload=body,
            )


def test_a_304_is_the_latest_earlier_body_with_its_etag(tmp_path: Path) -> None:
    site = tmp_path / "runs" / "shop"
    _archive(
        site / "20260101T000000Z-aaaaaa",
        [("http://s/a", 200, '"1"', b"a one"), ("http://s/b", 200, '"x"', b"b x")],
    )
    _archive(site / "20260102T000000Z-bbbbbb", [("http://s/a", 200, '"2"', b"a two")])
    last = site / "20260103T000000Z-cccccc"
    _archive(
        last,
        [
            ("http://s/a", 304, '"1"', b""),  # stands for day 1's body, not day 2's
            ("http://s/b", 304, '"y"', b""),  # no earlier body with its tag
            ("http://s/c", 304, None, b""),  # never archived with a body
            ("http://s/d", 200, None, b"d"),
        ],
    )
    pages = last_archived(last)
    assert sorted(pages) == ["http://s/a", "http://s/d"]
    a = pages["http://s/a"]
    assert (a.status, a.body, a.body_from) == (304, b"a one", str(site / "20260101T000000Z-aaaaaa"))
    assert a.headers["content-type"] == "text/html" and a.headers["etag"] == '"1"'
    assert pages["http://s/d"].body_from is None
    assert last_archived(last, {"http://s/a"}).keys() == {"http://s/a"}


def test_runs_started_in_the_same_second_are_ordered_by_their_archive(tmp_path: Path) -> None:
    import os

    from anchorpath.runner.archive import earlier_runs

    site = tmp_path / "runs" / "shop"
    first, second = site / "20260101T000000Z-ffffff", site / "20260101T000000Z-000000"
    _archive(first, [("http://s/a", 200, None, b"first")])
    _archive(second, [("http://s/a", 304, None, b"")])
    os.utime(first / "pages-00.warc.gz", ns=(1_000_000_000, 1_000_000_000))
    os.utime(second / "pages-00.warc.gz", ns=(2_000_000_000, 2_000_000_000))
    assert earlier_runs(second) == [first] and earlier_runs(first) == []
    assert last_archived(second)["http://s/a"].body == b"first"
