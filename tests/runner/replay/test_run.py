"""``anchorpath replay``: archived pages re-read with another selector version, no network.

Real demo runs (loopback server, polite fetcher, WARC with 304s), then replays into a scratch
database or backfilled into the store.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from anchorpath._errors import ConfigError, RunError
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner.drift.check import BASELINE_WINDOW
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.replay.backfill import ReplayRefused
from anchorpath.runner.replay.plan import ReplayOptions, parse_time
from anchorpath.runner.replay.run import replay_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import RunRow, Store
from anchorpath.selectors.load import load_selector_file, parse_selector_data, save_selector_file

from ...conftest import dump
from ..conftest import fast

SITE = "mfds-dmf"


def run_day(sel: Path, state: Path, day: int, srv: DemoServer | None = None) -> RunResult:
    if srv is not None:  # one server, one origin: day after day, with conditional requests
        srv.set_day(day)
        return run_site(RunOptions(SITE, sel, state, base_url=srv.base_url, settings=fast()))
    with DemoServer(day=day) as own:
        return run_site(RunOptions(SITE, sel, state, base_url=own.base_url, settings=fast()))


def replay(sel: Path, state: Path, run: RunRow, **kw: Any) -> Any:
    at = parse_time(run.started_at)
    return replay_site(ReplayOptions(SITE, sel, state, since=at, until=at, settings=fast(), **kw))


def runs(state: Path) -> list[RunRow]:
    with Store.in_state_dir(state) as store:
        return list(reversed(store.runs(SITE)))


def current(db: Path) -> dict[str, Any]:
    with Store(db) as store:
        return {k: dict(v.values) for k, v in store.current(SITE).items()}


def without_version(dump: dict[str, list[tuple[Any, ...]]]) -> dict[str, Any]:
    return {"records": [r[:5] for r in dump["records"]], "events": dump["events"]}


@pytest.fixture(scope="module")
def demo_story(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Days 1, 2, 3 (template change: drift), repair from the bundle, day 3 again."""
    from anchorpath.authoring.repair.pipeline import repair_from_bundle

    root = tmp_path_factory.mktemp("story")
    sel, state = root / "selectors", root / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    with DemoServer(day=1) as srv:
        verdicts = [run_day(sel, state, day, srv).verdict for day in (1, 2)]
        day3 = run_day(sel, state, 3, srv)
        assert [*verdicts, day3.verdict] == ["ok", "ok", "drift"] and day3.bundle
        repaired = repair_from_bundle(day3.bundle, selectors_dir=sel)
        assert repaired.adopted
        assert run_day(sel, state, 3, srv).verdict == "ok"
    return sel, state


@pytest.mark.slow
def test_template_change_day_replayed_with_the_repaired_file_gives_the_repaired_runs_records(
    demo_story: tuple[Path, Path],
) -> None:
    sel, state = demo_story
    before = dump(Store.in_state_dir(state))
    drift_run = next(r for r in runs(state) if r.verdict == "drift")
    result = replay(sel, state, drift_run)
    assert result.exit_code == 0 and result.version == 2
    [rr] = result.runs
    assert (rr.original_verdict, rr.verdict, rr.events) == ("drift", "ok", ())
    # exactly the records the repaired run committed, and the store untouched
    assert current(result.database) == current(state / "anchorpath.sqlite")
    assert result.final_diff.different == 0
    assert dump(Store.in_state_dir(state)) == before
    report = json.loads((result.out_dir / "report.json").read_text(encoding="utf-8"))
    assert report["runs"][0]["replayed"]["verdict"] == "ok"
    assert (result.out_dir / "report.md").is_file()


@pytest.mark.slow
def test_replay_with_the_runs_own_version_reproduces_its_events_through_304s(
    demo_story: tuple[Path, Path],
) -> None:
    sel, state = demo_story
    day2 = runs(state)[1]
    result = replay(sel, state, day2, version=1)
    [rr] = result.runs
    assert rr.verdict == "ok" and not rr.unresolved
    assert rr.same_events() and {e.kind for e in rr.events} == {"new", "changed", "withdrawn"}
    # the day-2 crawl was conditional: unchanged pages were 304s, read from day 1's WARC
    with Store.in_state_dir(state) as store:
        statuses = [
            r[0] for r in store._query("SELECT status FROM pages WHERE run_id = ?", (day2.id,))
        ]
    assert statuses.count(304) > 30


@pytest.mark.slow
def test_a_window_replays_its_304s_from_the_pages_of_its_own_earlier_runs(
    demo_story: tuple[Path, Path],
) -> None:
    """Day 1 is checked where it was extracted (no 304); day 2's 304s are read from day 1's
    pages, which the replay opens only then."""
    sel, state = demo_story
    day1, day2 = runs(state)[:2]
    result = replay_site(
        ReplayOptions(
            SITE,
            sel,
            state,
            version=1,
            since=parse_time(day1.started_at),
            until=parse_time(day2.started_at),
            settings=fast(),
        )
    )
    assert [r.run_id for r in result.runs] == [day1.id, day2.id]
    assert all(r.verdict == "ok" and not r.unresolved and r.same_events() for r in result.runs)
    assert {e.kind for e in result.runs[1].events} == {"new", "changed", "withdrawn"}


@pytest.mark.slow
def test_days_of_the_old_template_replay_unchanged_under_the_repaired_file(
    demo_story: tuple[Path, Path],
) -> None:
    """A repair is adopted only if it still reads the last good records on the old template (its
    fallbacks keep the old XPaths), so day 1 replayed with the repaired file gives day 1's events."""
    sel, state = demo_story
    first = parse_time(runs(state)[0].started_at)
    result = replay_site(ReplayOptions(SITE, sel, state, since=first, until=first, settings=fast()))
    [rr] = result.runs
    assert result.exit_code == 0 and rr.verdict == "ok" and rr.same_events()


def test_bad_requests_are_one_line_errors(tmp_path: Path) -> None:
    sel = tmp_path / "selectors"
    write_site_file(sel, "http://127.0.0.1:8765")
    with pytest.raises(RunError, match="no state database"):
        replay_site(ReplayOptions(SITE, sel, tmp_path / "state"))
    Store.in_state_dir(tmp_path / "state").close()
    with pytest.raises(RunError, match="no archived run to replay"):
        replay_site(ReplayOptions(SITE, sel, tmp_path / "state"))
    with pytest.raises(ConfigError, match="not a time"):
        parse_time("yesterday")
    assert parse_time("2026-11-30", end=True).isoformat().startswith("2026-11-30T23:59:59")


@pytest.fixture(scope="module")
def broken_day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """Day 1 with v1; day 2 with a broken v2 (drift); v3 fixes it. Also a reference state
    that ran days 1 and 2 with v1."""
    root = tmp_path_factory.mktemp("broken")
    sel, state, ref = root / "selectors", root / "state", root / "ref"
    path = write_site_file(sel, "http://127.0.0.1:8765")
    good = json.loads(path.read_text(encoding="utf-8"))
    assert run_day(sel, ref, 1).verdict == "ok" and run_day(sel, ref, 2).verdict == "ok"
    assert run_day(sel, state, 1).verdict == "ok"
    bad = json.loads(json.dumps(good))
    for pt in bad["page_types"].values():
        for name in ("ingredient", "applicant", "manufacturer"):
            pt["fields"][name]["xpath"] = "//nothing-here"
            pt["fields"][name].pop("fallbacks", None)
    save_selector_file(parse_selector_data(bad), path)
    assert run_day(sel, state, 2).verdict == "drift"
    save_selector_file(parse_selector_data(good), path)
    assert load_selector_file(path).version == 3
    return sel, state, ref


@pytest.mark.slow
def test_into_store_backfills_a_drift_run_as_if_it_had_used_the_fixed_file(
    broken_day: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    sel, state0, ref = broken_day
    state = tmp_path / "state"
    shutil.copytree(state0, state)
    drift_run = runs(state)[1]
    result = replay(sel, state, drift_run, into="store", by="kim")
    assert result.written == 1 and result.runs[0].verdict == "ok"
    assert len(result.runs[0].events) == 6
    got = dump(Store.in_state_dir(state), SITE)
    assert without_version(got) == without_version(dump(Store.in_state_dir(ref), SITE))
    backfilled = runs(state)[1]
    assert (backfilled.verdict, backfilled.selector_version, backfilled.accepted_by) == (
        "replayed",
        3,
        "kim",
    )
    # the next live run finds nothing new: the backfill is the day's truth
    assert run_day(sel, state, 2).events == []


@pytest.mark.slow
def test_into_store_refuses_what_a_newer_run_would_contradict_and_writes_nothing(
    broken_day: tuple[Path, Path, Path], tmp_path: Path
) -> None:
    sel, state0, _ = broken_day
    state = tmp_path / "state"
    shutil.copytree(state0, state)
    drift_run = runs(state)[1]
    rerun = run_day(sel, state, 2)
    assert rerun.verdict == "ok" and len(rerun.events) == 6
    before = dump(Store.in_state_dir(state))
    with pytest.raises(ReplayRefused, match=f"run {rerun.run_id} .* newer"):
        replay(sel, state, drift_run, into="store")
    with pytest.raises(ReplayRefused, match="replays as drift with version 2"):
        replay(sel, state, drift_run, into="store", version=2)
    assert dump(Store.in_state_dir(state)) == before
    assert runs(state)[1].verdict == "drift"


@pytest.fixture(scope="module")
def long_history(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """One demo crawl cloned into more runs than the drift baseline's window holds; one clone's
    archive is empty (it replays as an error: not committed, not in the baseline)."""
    root = tmp_path_factory.mktemp("long")
    sel, state = root / "selectors", root / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    assert run_day(sel, state, 1).verdict == "ok"
    with Store.in_state_dir(state) as store:
        [row] = store.runs(SITE)
        segment = Path(row.warc_path or "")
        for k in range(1, BASELINE_WINDOW + 4):
            run_dir = state / "runs" / SITE / f"{row.id}-{k:02d}"
            run_dir.mkdir(parents=True)
            if k == 5:
                (run_dir / segment.name).write_bytes(b"")
            else:
                shutil.copy(segment, run_dir / segment.name)
            shutil.copy(Path(row.run_dir or "") / "report.json", run_dir / "report.json")
            store.commit_run(
                replace(
                    row,
                    id=run_dir.name,
                    started_at=row.started_at.replace("Z", f"{k:02d}Z"),
                    run_dir=str(run_dir),
                    warc_path=str(run_dir / segment.name),
                )
            )
    return sel, state


@pytest.mark.slow
def test_each_run_of_a_long_window_is_gated_against_the_scratch_databases_baseline(
    long_history: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replay keeps the drift baseline in memory as it commits: for every run it is the
    baseline the scratch database gives at that point (window full, error runs left out)."""
    import anchorpath.runner.decide as decide_mod
    from anchorpath.runner.drift import gate as gate_mod

    sel, state = long_history
    sf_path = sel / f"{SITE}.json"
    sf = load_selector_file(sf_path)
    checked: list[int] = []

    def gate(stats: Any, history: Any, *args: Any) -> Any:
        [db] = state.glob(f"replays/{SITE}/*/anchorpath.sqlite")
        with Store(db) as scratch:
            assert history == gate_mod.baseline(scratch, sf, sf_path)
        checked.append(len(history))
        return gate_mod.gate(stats, history, *args)

    monkeypatch.setattr(decide_mod, "gate", gate)
    result = replay_site(ReplayOptions(SITE, sel, state, settings=fast()), max_in_flight=3)
    verdicts = [r.verdict for r in result.runs]
    assert verdicts.count("error") == 1 and verdicts.count("ok") == len(verdicts) - 1
    assert len(checked) == len(verdicts) - 1 and max(checked) == BASELINE_WINDOW
