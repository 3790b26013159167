"""What a finished run leaves for people: quarantine files, alert bundle, change rate, report.

:mod:`~anchorpath.runner.report.render` renders the summary dict built here;
:mod:`~anchorpath.runner.report.alert` writes the alert bundle from the snapshots gathered here.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import statistics
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from anchorpath.runner.archive import last_archived
from anchorpath.runner.changerate import ChangeRate, assess
from anchorpath.runner.drift.check import DriftResult
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.model import Checkpoint, InvalidRecord
from anchorpath.runner.report.alert import write_alert_bundle
from anchorpath.runner.report.model import Duplicate, RunReport
from anchorpath.runner.report.render import write_reports
from anchorpath.runner.run_types import RunResult
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.runner.verdict import COMMITTED
from anchorpath.selectors.evaluate import CompiledSelectors, evaluate_page, parse_html
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "BUNDLE_SNAPSHOTS",
    "change_rate",
    "run_report",
    "snapshots",
    "write_bundle",
    "write_quarantine",
    "write_report",
]

#: Snapshots per side put into an alert bundle.
BUNDLE_SNAPSHOTS = 6


def write_quarantine(cp: Checkpoint, run_dir: Path, invalid: list[InvalidRecord]) -> Path:
    """Keep a run's records, invalid records and pages in ``<run_dir>/quarantine/``."""
    q = run_dir / "quarantine"
    q.mkdir(parents=True, exist_ok=True)
    with (q / "records.jsonl").open("w", encoding="utf-8") as fh:
        for r in cp.records:
            fh.write(json.dumps(r.to_dict(), ensure_ascii=False) + "\n")
    (q / "invalid.json").write_text(
        json.dumps([r.to_dict() for r in invalid], ensure_ascii=False, indent=1), encoding="utf-8"
    )
    (q / "pages.json").write_text(
        json.dumps([p.to_dict() for p in cp.pages], indent=1), encoding="utf-8"
    )
    return q


def change_rate(store: Store, site: str) -> ChangeRate:
    """How often the site's committed runs found changes (``changerate.assess``), for the
    scheduler."""
    # every committed run, but not its statistics: parsing them was most of the cost (~0.1 ms
    # a run, for each run of a site with a long history)
    runs = list(reversed(store.runs(site, verdicts=COMMITTED, stats=False)))
    changed = [(r.new + r.changed + r.withdrawn) > 0 for r in runs]
    interval = 1.0
    times = []
    for r in runs:
        try:
            times.append(dt.datetime.fromisoformat(r.started_at.replace("Z", "+00:00")))
        except ValueError:
            continue
    if len(times) >= 3:
        gaps = [(b - a).total_seconds() / 86400 for a, b in itertools.pairwise(times)]
        med = statistics.median(gaps)
        # Runs hours apart (tests, the demo, reruns) are not a schedule; keep one day.
        interval = med if med >= 0.5 else 1.0
    return assess(changed, interval)


def snapshots(run_dir: Path, urls: list[tuple[str, str]]) -> list[tuple[str, bytes]]:
    """Up to :data:`BUNDLE_SNAPSHOTS` pages of ``run_dir`` as the run read them (a 304 with the
    body it stands for, :func:`~anchorpath.runner.archive.last_archived`), in the order of
    ``urls`` (``(url, final_url)`` pairs: a redirected page's body is its target's).

    Only the first pages' 304s are followed back (each may send the search through every
    earlier run of the site); the others only when those do not give enough snapshots."""
    out: list[tuple[str, bytes]] = []
    for chunk in (urls[: 2 * BUNDLE_SNAPSHOTS], urls[2 * BUNDLE_SNAPSHOTS :]):
        if len(out) >= BUNDLE_SNAPSHOTS or not chunk:
            break
        pages = last_archived(run_dir, {u for pair in chunk for u in pair})
        for url, final_url in chunk:
            page = pages.get(final_url) or pages.get(url)
            if page is not None:
                out.append((url, page.body))
            if len(out) >= BUNDLE_SNAPSHOTS:
                break
    return out


def write_bundle(
    store: Store,
    site: str,
    sf_path: Path,
    compiled: CompiledSelectors,
    cp: Checkpoint,
    result: RunResult,
    drift_obj: DriftResult,
) -> Path:
    """The alert bundle of a drift run: the last good run's pages and records beside this
    run's (:func:`~anchorpath.runner.report.alert.write_alert_bundle`)."""
    good_runs = store.runs(site, verdicts=COMMITTED, limit=1, stats=False)
    last_good: list[tuple[str, bytes]] = []
    last_records: list[dict[str, Any]] = []
    if good_runs and good_runs[0].run_dir:
        good_dir = Path(good_runs[0].run_dir)
        last_good = snapshots(good_dir, store.page_urls(good_runs[0].id))
        for url, body in last_good:
            pr = evaluate_page(compiled, parse_html(body, plain=True), url)
            last_records += [r.to_dict() for r in pr.records]
    failing = snapshots(result.run_dir, [(p.url, p.final_url) for p in cp.pages])
    failing_urls = {u for u, _ in failing}
    failing_records = [
        {"_url": r.url, "_page_type": r.page_type, **r.values}
        for r in cp.records
        if r.url in failing_urls
    ]
    return Path(
        write_alert_bundle(
            result.run_dir,
            sf_path,
            last_good,
            last_records,
            failing,
            drift_obj,
            failing_records=failing_records,
            run_id=cp.run_id,
        )
    )


def renderer_line(render: str, counters: Mapping[str, float]) -> str:
    """How pages were read, with the browser's timings: ``browser (Chromium): 71 pages
    rendered, 107 ms/page, launch 1.1 s`` or ``http``."""
    if render != "browser":
        return "http"
    n = int(counters.get("rendered", 0))
    per = 1000 * counters.get("render_seconds", 0.0) / n if n else 0.0
    launch = counters.get("browser_launch_seconds", 0.0)
    return f"browser (Chromium): {n} pages rendered, {per:.0f} ms/page, launch {launch:.1f} s"


def run_report(
    state_dir: Path,
    sf: SelectorFile,
    sf_path: Path,
    cp: Checkpoint,
    result: RunResult,
    stats: RunStats | None,
    baseline: Sequence[RunStats],
    quarantine: Path | None,
    finished: str,
) -> RunReport:
    """The report of a finished run that ``report.write_reports`` renders."""
    paths = {
        "database": str(state_dir / DB_NAME),
        "warc": ", ".join(str(result.run_dir / s) for s in cp.warc_segments),
        "selector_file": str(sf_path),
    }
    if quarantine:
        paths["quarantine"] = str(quarantine)
    if result.bundle:
        paths["bundle"] = str(result.bundle)
        paths["alert"] = str(result.run_dir / "alert.json")
    return RunReport(
        run_id=cp.run_id,
        site=sf.site.id,
        verdict=result.verdict,
        policy=result.policy,
        reason=result.reason,
        selector_version=sf.version,
        renderer=renderer_line(sf.fetch.render, result.fetch_counters),
        started_at=cp.started_at,
        finished_at=finished,
        resumed=result.resumed,
        complete=result.complete,
        urls=tuple(str(u) for u in cp.options.get("urls") or ()),
        counts=result.counts(),
        charset=tuple(result.charset),
        extraction=tuple(result.extraction),
        duplicates=tuple(
            Duplicate(key, tuple(pages)) for key, pages in sorted(result.duplicates.items())
        ),
        events=tuple(result.events),
        drift=result.drift,
        field_stats=stats,
        baseline_history=tuple(baseline),
        fetch=dict(result.fetch_counters),
        errors=tuple(result.errors),
        change_rate=result.change_rate,
        paths=paths,
    )


def write_report(
    state_dir: Path,
    sf: SelectorFile,
    sf_path: Path,
    cp: Checkpoint,
    result: RunResult,
    stats: RunStats | None,
    baseline: Sequence[RunStats],
    quarantine: Path | None,
    finished: str,
) -> None:
    """Write the run's reports into its run directory."""
    report = run_report(state_dir, sf, sf_path, cp, result, stats, baseline, quarantine, finished)
    write_reports(result.run_dir, report)
