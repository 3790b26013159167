"""A key change is a migration: after re-authoring with another ``key`` (``title`` ->
``isbn``), the records stored under the old key stay current only until the new version's
first complete run, which retires them all at once; until then ``records`` warns."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.runner.store.database import Store

from .test_run_rules import BOOKS, DETAIL_ONLY, ORIGIN, SELECTOR, keys, run, site

BY_TITLE: dict[str, Any] = {**copy.deepcopy(SELECTOR), "key": ["title"]}
BY_ISBN: dict[str, Any] = {**copy.deepcopy(SELECTOR), "version": 2, "key": ["isbn"]}


def records_cli(tmp_path: Path) -> Any:
    return CliRunner().invoke(
        main,
        [
            "records",
            "books",
            "--selectors",
            str(tmp_path / "selectors"),
            "--state",
            str(tmp_path / "state"),
            "--format",
            "jsonl",
        ],
    )


def test_the_first_complete_run_under_a_new_key_retires_the_old_keys(tmp_path: Path) -> None:
    first = run(tmp_path, site(BOOKS), selector=BY_TITLE)
    assert sorted(keys(first, "new")) == sorted(t for _i, t in BOOKS.values())
    # re-authored with another key, first run limited to two pages: not complete
    partial = run(tmp_path, site(BOOKS), selector=BY_ISBN, urls=(f"{ORIGIN}/book/1",))
    assert partial.verdict == "ok" and not partial.complete
    assert keys(partial, "new") == ["111"] and keys(partial, "withdrawn") == []
    assert partial.rekeyed == 5  # stored under the old key, still current
    shown = records_cli(tmp_path)
    assert shown.exit_code == 0
    assert "5 current record(s) are stored under another key than ['isbn']" in shown.stderr
    assert len(shown.stdout.splitlines()) == 6
    # the first complete run: every old key retired in this one run
    full = run(tmp_path, site(BOOKS), selector=BY_ISBN)
    assert full.complete and full.rekeyed == 5
    assert sorted(keys(full, "withdrawn")) == sorted(t for _i, t in BOOKS.values())
    assert sorted(keys(full, "new")) == ["222", "333", "444", "555"]
    with Store.in_state_dir(tmp_path / "state") as store:
        assert sorted(store.current("books")) == ["111", "222", "333", "444", "555"]
    report = json.loads((full.run_dir / "report.json").read_text())
    assert report["counts"]["rekeyed"] == 5
    assert "stored under another key" not in records_cli(tmp_path).stderr
    again = run(tmp_path, site(BOOKS), selector=BY_ISBN)
    assert again.events == [] and again.rekeyed == 0


def test_records_reached_only_as_start_pages_are_retired_too(tmp_path: Path) -> None:
    """Records not found through a listing are never withdrawn for being unseen, but a
    record stored under the old key is retired by a complete run whatever its source."""
    run(tmp_path, site(BOOKS), selector={**DETAIL_ONLY, "key": ["title"]})
    full = run(tmp_path, site(BOOKS), selector={**DETAIL_ONLY, "version": 2, "key": ["isbn"]})
    assert full.complete
    assert sorted(keys(full, "withdrawn")) == ["Game Over", "Paper Anchors", "Slow Crawl"]
