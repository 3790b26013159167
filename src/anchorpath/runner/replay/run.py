"""``replay_site``: the replay of one site, from the window of runs to the report (plan → extract →
gate → backfill → report)."""

from __future__ import annotations

import datetime as dt
import secrets
from pathlib import Path

from anchorpath._errors import (
    ConfigError,
    RunError,
)
from anchorpath.runner.executor import Executor, LocalExecutor
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.progress import Progress, no_progress
from anchorpath.runner.replay.backfill import backfill
from anchorpath.runner.replay.gate import Replayer, cycles_uncollected, replay_runs
from anchorpath.runner.replay.plan import ReplayOptions, load, runs_to_replay
from anchorpath.runner.replay.report import ReplayReport, final_diff, write_report
from anchorpath.runner.run_types import EXIT_DRIFT, EXIT_ERROR, EXIT_OK
from anchorpath.runner.store.database import (
    DB_NAME,
    Store,
)
from anchorpath.runner.verdict import COMMITTED
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "replay_site",
]


def replay_site(
    options: ReplayOptions,
    *,
    executor: Executor | None = None,
    progress: Progress | None = None,
    max_in_flight: int = 4,
) -> ReplayReport:
    """Replay the archived runs of ``options.site`` (see the module docstring).

    Raises ``AnchorpathError`` subclasses for what cannot start (unknown site or version, no
    archived run in the window, lock held for ``--into store``) and :class:`ReplayRefused`
    when a backfill would break the checks (nothing is written then).
    """
    if options.into not in ("scratch", "store"):
        raise ConfigError(f"--into {options.into!r}: expected scratch or store")
    sf, sf_path = load(options)
    site = sf.site.id
    state = options.state_dir
    if sf.policy is not None and not sf.policy.store_raw:
        raise RunError(
            f"{sf_path}: replay needs the pages' bodies, and site {site!r} keeps none "
            "(policy.store_raw: false): its archive holds headers and digests only, so the "
            "records cannot be re-extracted; the store's records and events are all there is"
        )
    if not (state / DB_NAME).is_file():
        raise RunError(f"{state / DB_NAME}: no state database, so nothing was archived yet")
    lock = SiteLock(state, site) if options.into == "store" else None
    if lock is not None:
        lock.acquire()
    store = Store(state / DB_NAME)
    try:
        return _replay(
            options, sf, sf_path, store, executor or LocalExecutor(), progress, max_in_flight
        )
    finally:
        store.close()
        if lock is not None:
            lock.release()


def _replay(
    options: ReplayOptions,
    sf: SelectorFile,
    sf_path: Path,
    store: Store,
    executor: Executor,
    progress: Progress | None,
    max_in_flight: int,
) -> ReplayReport:
    site = sf.site.id
    window, older = runs_to_replay(store, site, options)
    if not window:
        span = f" between {options.since or 'the first run'} and {options.until or 'now'}"
        raise RunError(f"site {site!r} has no archived run to replay{span}")
    sink = progress or no_progress
    replay_id = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)
    out_dir = options.state_dir / "replays" / site / replay_id
    out_dir.mkdir(parents=True, exist_ok=True)
    scratch_path = out_dir / DB_NAME
    t0 = window[0].started_at
    rep = Replayer(options, sf, sf_path, store, executor, sink, max_in_flight)

    # The gate and the commits go to a scratch database seeded as of t0, run after run.
    scratch = Store(scratch_path, scratch=True)
    try:
        for r in reversed(store.runs(site, verdicts=COMMITTED, before=t0)):
            scratch.commit_run(r)
        scratch.seed_records(site, store.records_as_of(site, t0), run_id="seed", at=t0)
        rep.start_history(scratch)
        with cycles_uncollected():
            replayed = replay_runs(rep, window, older, scratch)
        end = window[-1].started_at
        final = scratch.current(site)
    finally:
        scratch.close()
    newer = [
        r
        for r in reversed(store.runs(site, verdicts=COMMITTED, stats=False))
        if r.started_at > end and r.id not in {w.id for w in window}
    ]
    truth = store.records_as_of(site, newer[0].started_at) if newer else store.current(site)
    bad = [r for r in replayed if r.verdict not in ("ok", "empty-source")]
    exit_code = (
        EXIT_OK
        if not bad
        else (EXIT_DRIFT if any(r.verdict == "drift" for r in bad) else EXIT_ERROR)
    )
    written, database = 0, scratch_path
    if options.into == "store":
        written, database = backfill(store, replayed, newer, options, sf), store.path
    report = ReplayReport(
        replay_id,
        site,
        sf.version,
        options.into,
        tuple(r.report() for r in replayed),
        out_dir,
        database,
        written,
        exit_code,
        final_diff(final, truth),
    )
    write_report(report)
    return report
