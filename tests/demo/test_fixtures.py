"""Golden fixtures of the demo selector file (``anchorpath.demo.golden``).

They cannot drift silently: regenerating gives exactly the checked-in bytes in both places; the
snapshots are what the demo server serves on day 1; extracting them gives the expected records
(which come from the demo's ground truth, not from the extractor); and a day-1 run seeds its
drift baseline from them.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from anchorpath._config import Settings
from anchorpath.cli import main
from anchorpath.demo import DemoServer
from anchorpath.demo.data import expected_events, records_for_day
from anchorpath.demo.golden import (
    FIXTURE_DIR,
    FIXTURE_ORIGIN,
    build_fixtures,
    copy_packaged_fixtures,
    detail_records,
    fixture_entries,
)
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.run_types import RunOptions
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import dump_selector_file, load_selector_file

REPO = Path(__file__).resolve().parents[2]
TOP_DIR = REPO / "selectors"
PACKAGE_DIR = REPO / "src" / "anchorpath" / "demo"
SELECTOR_DIRS = pytest.mark.parametrize(
    "root", [TOP_DIR, PACKAGE_DIR], ids=["selectors", "package"]
)


@pytest.fixture(scope="module")
def built() -> dict[str, bytes]:
    return build_fixtures()


@SELECTOR_DIRS
def test_regenerating_gives_the_checked_in_bytes(root: Path, built: dict[str, bytes]) -> None:
    on_disk = {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / FIXTURE_DIR).iterdir())
    }
    assert sorted(on_disk) == sorted(built), "fixture files added or missing"
    stale = [name for name, body in built.items() if on_disk[name] != body]
    assert not stale, f"regenerate with `python -m anchorpath.demo.golden`: {stale}"


@SELECTOR_DIRS
def test_selector_file_names_the_fixtures(root: Path) -> None:
    path = root / "mfds-dmf.json"
    sf = load_selector_file(path)
    assert [f.to_dict() for f in sf.fixtures] == fixture_entries()
    assert dump_selector_file(sf) == path.read_text(encoding="utf-8")
    for fx in sf.fixtures:
        assert fx.url.startswith(FIXTURE_ORIGIN + "/dmf/")
        assert (root / fx.page).is_file() and fx.records and (root / fx.records).is_file()


def test_fixtures_cover_both_list_pages_and_the_day2_story() -> None:
    entries = fixture_entries()
    lists = [e for e in entries if "/list.do" in e["url"]]
    details = [e for e in entries if "/view.do" in e["url"]]
    assert [e["url"] for e in lists] == [
        f"{FIXTURE_ORIGIN}/dmf/list.do?page=1",
        f"{FIXTURE_ORIGIN}/dmf/list.do?page=2",
    ]
    assert len(details) >= 4
    keys = {r.reg_no for r in detail_records()}
    events = expected_events(1, 2)
    assert {*events.changed, *events.trivial, *events.withdrawn} <= keys
    assert {r.reg_no for r in records_for_day(1)[:20]} <= keys
    # File names are ASCII (wheels, zips, odd file systems).
    assert all(e["page"].isascii() and (e["records"] or "").isascii() for e in entries)


def test_snapshots_are_the_bytes_the_demo_server_serves(
    built: dict[str, bytes], http: Callable[..., Any]
) -> None:
    with DemoServer(day=1) as server:
        for entry in fixture_entries():
            resp = http(entry["url"].replace(FIXTURE_ORIGIN, server.base_url))
            assert resp.status == 200, entry["url"]
            assert resp.headers["content-type"] == "text/html; charset=euc-kr"
            assert resp.body == built[entry["page"]], entry["page"]


@pytest.mark.parametrize("entry", fixture_entries(), ids=lambda e: Path(e["page"]).stem)
def test_extracting_a_fixture_gives_its_expected_records(entry: dict[str, str]) -> None:
    sf = load_selector_file(TOP_DIR / "mfds-dmf.json")
    body = (TOP_DIR / entry["page"]).read_bytes()
    expected = json.loads((TOP_DIR / entry["records"]).read_text(encoding="utf-8"))
    records = extract(sf, body, entry["url"])
    assert [r.to_dict() for r in records] == expected
    assert not any(r.flagged for r in records)
    assert expected and all(e["_url"] == entry["url"] for e in expected)


def test_records_are_what_anchorpath_extract_prints() -> None:
    # One list page and one detail page through the CLI: the records files use its JSON shape.
    for entry in fixture_entries()[1:3]:
        res = CliRunner().invoke(
            main,
            [
                "extract",
                "-s",
                str(TOP_DIR / "mfds-dmf.json"),
                "--url",
                entry["url"],
                str(TOP_DIR / entry["page"]),
            ],
        )
        assert res.exit_code == 0, res.output
        lines = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
        assert lines == json.loads((TOP_DIR / entry["records"]).read_text(encoding="utf-8"))


def test_copy_packaged_fixtures(tmp_path: Path, built: dict[str, bytes]) -> None:
    written = copy_packaged_fixtures(tmp_path)
    assert len(written) == len(built)
    for name, body in built.items():
        assert (tmp_path / name).read_bytes() == body


def _settings() -> Settings:
    s = Settings()
    fast = replace(
        s.fetch,
        min_delay=0.0,
        delay_factor=0.0,
        allow_private_networks=True,
        contact="tests@anchorpath.invalid",
    )
    return replace(s, fetch=fast)


def _first_run_report(selectors: Path, state: Path, day: int = 1) -> tuple[int, dict[str, Any]]:
    with DemoServer(day=day) as srv:
        opts = RunOptions("mfds-dmf", selectors, state, base_url=srv.base_url, settings=_settings())
        result = run_site(opts)
    report: dict[str, Any] = json.loads((result.run_dir / "report.json").read_text("utf-8"))
    return result.exit_code, report


def _selectors_dir(tmp_path: Path, *, fixtures: bool) -> Path:
    selectors = tmp_path / "selectors"
    selectors.mkdir()
    shutil.copy(TOP_DIR / "mfds-dmf.json", selectors / "mfds-dmf.json")
    if fixtures:
        copy_packaged_fixtures(selectors)
    return selectors


@pytest.mark.slow
def test_day1_run_is_checked_against_the_seeded_baseline(tmp_path: Path) -> None:
    code, report = _first_run_report(_selectors_dir(tmp_path, fixtures=True), tmp_path / "state")
    assert (report["verdict"], code) == ("ok", 0), report["reason"]
    history = report["baseline_history"]
    assert len(history) == 1 and history[0]["seeded"] is True
    assert report["drift"]["baseline_runs"] == 1
    # The seed holds both page types' statistics (from the list and detail fixtures).
    assert set(history[0]["page_types"]) == {"list", "detail"}


@pytest.mark.slow
def test_without_fixtures_day1_is_checked_against_the_fields_examples(tmp_path: Path) -> None:
    # The same selector file with its fixtures missing: the fields' examples (the seed values
    # authoring kept) seed the baseline instead; day 1 passes against them.
    code, report = _first_run_report(_selectors_dir(tmp_path, fixtures=False), tmp_path / "state")
    assert (report["verdict"], code) == ("ok", 0), report["reason"]
    history = report["baseline_history"]
    assert len(history) == 1 and history[0]["seeded"] is True
    assert history[0]["run_id"] == "examples"


@pytest.mark.slow
def test_a_first_run_on_a_changed_template_is_stopped_by_the_seed(tmp_path: Path) -> None:
    # The site was redesigned before the very first run: the seeded baseline names the fields.
    selectors = _selectors_dir(tmp_path, fixtures=True)
    code, report = _first_run_report(selectors, tmp_path / "state", day=3)
    assert (report["verdict"], code) == ("drift", 3)
    assert report["drift"]["baseline_runs"] == 1
    assert {"detail.ingredient", "detail.applicant"} <= set(report["drift"]["fields"])
