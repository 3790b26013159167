"""``anchorpath purge`` keeps the retention window exactly: ``records --as-of`` any time in
it answers as before, an earlier time is refused as outside retention, and what is older
(closed versions, events, run folders) is gone, with an audit row."""

from __future__ import annotations

import datetime as dt
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath._errors import RunError, StoreError
from anchorpath.cli import main
from anchorpath.demo import DemoServer, write_site_file
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.retention.purge import purge_site
from anchorpath.runner.run_types import RunOptions, RunResult
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.runner.store.export import iter_records
from anchorpath.runner.store.governance import deletions
from anchorpath.selectors.load import load_selector_file, save_selector_file

from ..conftest import fast

FMT = "%Y-%m-%dT%H:%M:%S.%fZ"


def _t(text: str) -> dt.datetime:
    return dt.datetime.strptime(text, FMT).replace(tzinfo=dt.UTC)


def _s(when: dt.datetime) -> str:
    return when.strftime(FMT)


def _run(sel: Path, state: Path, day: int) -> RunResult:
    with DemoServer(day=day) as srv:
        r = run_site(RunOptions("mfds-dmf", sel, state, base_url=srv.base_url, settings=fast()))
    assert r.verdict == "ok", r.reason
    return r


@pytest.mark.slow
def test_purge_keeps_the_window_exactly(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    write_site_file(sel, "http://127.0.0.1:8765")
    first, second = _run(sel, state, 1), _run(sel, state, 2)
    time.sleep(0.05)
    third = _run(sel, state, 4)
    with Store.in_state_dir(state) as store:
        runs = {r.id: r for r in store.runs("mfds-dmf")}
    # the window starts between the second run's end and the third run's start
    start2, end2 = _t(runs[second.run_id].started_at), _t(runs[second.run_id].finished_at or "")
    start3 = _t(runs[third.run_id].started_at)
    cutoff = end2 + (start3 - end2) / 2
    db = state / DB_NAME
    probes = [_s(cutoff), _s(start3), _s(start3 + dt.timedelta(seconds=1)), None]
    before = {p: list(iter_records(db, "mfds-dmf", p)) for p in probes}
    with Store.in_state_dir(state) as store:
        closed = store.query(
            "SELECT COUNT(*) FROM records WHERE valid_to IS NOT NULL AND valid_to <= ?",
            (_s(cutoff),),
        )[0][0]
    assert closed > 0  # the second run closed versions: they are before the window

    days = load_selector_file(sel / "mfds-dmf.json").policy.retention_days  # type: ignore[union-attr]
    result = purge_site(
        state_dir=state,
        selectors_dir=sel,
        site="mfds-dmf",
        by="kim",
        at=_s(cutoff + dt.timedelta(days=days)),
    )
    assert result.cutoff == _s(cutoff)
    assert result.counts["record_versions"] == closed and result.counts["runs"] == 2
    assert {p: list(iter_records(db, "mfds-dmf", p)) for p in probes} == before
    with pytest.raises(StoreError, match="outside retention"):
        list(iter_records(db, "mfds-dmf", _s(start2)))
    res = CliRunner().invoke(
        main,
        ["records", "mfds-dmf", "--as-of", _s(start2), "--selectors", str(sel), "--state",
         str(state)],
    )  # fmt: skip
    assert res.exit_code == 1 and "outside retention" in res.output
    assert not first.run_dir.exists() and not second.run_dir.exists() and third.run_dir.is_dir()
    with Store.in_state_dir(state) as store:
        assert [r.id for r in store.runs("mfds-dmf")] == [third.run_id]
        assert store.query("SELECT MIN(at) FROM events")[0][0] >= _s(cutoff)
        (audit,) = deletions(store, "mfds-dmf")
        assert audit.kind == "purge" and audit.by == "kim" and audit.cutoff == _s(cutoff)
        assert audit.key_hashes == () and len(audit.files) == 2


def test_purge_needs_a_retention_period(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    path = write_site_file(sel, "http://127.0.0.1:8765")
    sf = load_selector_file(path)
    assert sf.policy is not None
    from dataclasses import replace

    save_selector_file(
        replace(sf, policy=replace(sf.policy, retention_days=None)), path, bump=False
    )
    with pytest.raises(RunError, match=r"no policy\.retention_days"):
        purge_site(state_dir=state, selectors_dir=sel, site="mfds-dmf", by="kim")
    res = CliRunner().invoke(
        main, ["purge", "mfds-dmf", "--selectors", str(sel), "--state", str(state)]
    )
    assert res.exit_code == 1 and "retention_days" in res.output
