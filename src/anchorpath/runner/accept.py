"""Accepting a quarantined ``drift`` run after a person reviewed it (``anchorpath accept``).

The drift gate favours recall, so some alarms are false: a site notice rewritten, a field whose
values legitimately changed shape. Such a run is quarantined, never joins the gate's baseline
(built from committed runs only) and the alarm would repeat every day. :func:`accept_run`
commits the quarantined records exactly as an ``ok`` run would have (events computed against
the store's current records, one transaction, ``withdrawn`` only if that run's crawl was
complete — :func:`anchorpath.runner.store.commit.commit_records`), marks the run ``accepted`` with
who and when, and its field statistics join the baseline.

Refused (:class:`AcceptRefused`, one line): an unknown run id; a run that was not ``drift``
(``blocked`` never: the site refused us, nothing is wrong with the selectors); a run already
accepted; a run older than a committed one (accepting it would rewrite history: the later
run's events were computed without it).
"""

from __future__ import annotations

import getpass
import json
from dataclasses import replace
from pathlib import Path

from anchorpath._errors import AnchorpathError, RunError
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.model import PageEntry, RecordEntry
from anchorpath.runner.report.model import RunReport
from anchorpath.runner.report.render import write_reports
from anchorpath.runner.run_types import EXIT_OK, RunResult, now
from anchorpath.runner.store.commit import (
    ACCEPT_PLAN,
    CommitPlan,
    commit_records,
    page_rows,
)
from anchorpath.runner.store.database import DB_NAME, RunRow, Store
from anchorpath.runner.verdict import COMMITTED
from anchorpath.selectors.load import find_selector_file, load_selector_file

__all__ = ["AcceptRefused", "accept_run", "default_acceptor"]


class AcceptRefused(RunError):
    """The run cannot be accepted (unknown, not drift, already accepted, or superseded)."""


def default_acceptor() -> str:
    """The login name of whoever runs the command (``unknown`` when there is none)."""
    try:
        return getpass.getuser() or "unknown"
    except (OSError, KeyError):  # no USER/LOGNAME and no passwd entry (containers)
        return "unknown"


def _check(rows: list[RunRow], run_id: str, site: str, db: Path) -> RunRow:
    """The run to accept, or :class:`AcceptRefused` saying why not."""
    index = next((i for i, r in enumerate(rows) if r.id == run_id), None)
    if index is None:
        raise AcceptRefused(f"{db}: site {site!r} has no run {run_id!r}")
    run = rows[index]
    if run.verdict == "accepted":
        raise AcceptRefused(
            f"run {run_id} of {site} was already accepted by {run.accepted_by} at {run.accepted_at}"
        )
    if run.verdict in ("blocked", "stopped"):
        raise AcceptRefused(
            f"run {run_id} of {site} was {run.verdict} by the site ({run.error}): a refusal is "
            "not a selector problem and can never be accepted; run the site again when it lets "
            "us in" + (" (after `anchorpath resume`)" if run.verdict == "stopped" else "")
        )
    if run.verdict != "drift":
        raise AcceptRefused(
            f"run {run_id} of {site} has verdict {run.verdict!r}: only drift runs can be accepted"
        )
    # ``rows`` is newest first: a committed run before ``index`` started after this one.
    later = [r for r in rows[:index] if r.verdict in COMMITTED]
    if later:
        raise AcceptRefused(
            f"run {run_id} of {site} is older than committed run {later[-1].id} "
            f"({later[-1].verdict}, started {later[-1].started_at}): accepting it would rewrite "
            "history; wait for the next run (or accept a drift run newer than it)"
        )
    return run


def _load_quarantine(
    run: RunRow, state_dir: Path
) -> tuple[CommitPlan, list[RecordEntry], list[PageEntry]]:
    run_dir = Path(run.run_dir) if run.run_dir else state_dir / "runs" / run.site / run.id
    q = run_dir / "quarantine"
    path = q / ACCEPT_PLAN
    try:
        plan = CommitPlan.from_dict(json.loads(path.read_text(encoding="utf-8")))
        path = q / "records.jsonl"
        with path.open(encoding="utf-8") as fh:
            records = [RecordEntry.from_dict(json.loads(line)) for line in fh if line.strip()]
        path = q / "pages.json"
        page_data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(page_data, list):
            raise RunError(f"{path}: not a list of pages")
        pages = [PageEntry.from_dict(p) for p in page_data]
    except FileNotFoundError as exc:
        raise AcceptRefused(
            f"{path}: missing, so run {run.id} has nothing to commit (quarantine deleted, or "
            "written by an anchorpath without `accept`)"
        ) from exc
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise RunError(f"{path}: cannot read the quarantined run: {exc}") from exc
    return plan, records, pages


def _rewrite_report(result: RunResult) -> None:
    """The run's report files, now saying it was accepted and what it committed."""
    path = result.run_dir / "report.json"
    try:
        report = RunReport.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError, AnchorpathError):
        report = RunReport(result.run_id, result.site, "drift")
    write_reports(
        result.run_dir,
        report.accepted(
            by=result.accepted_by,
            at=result.accepted_at,
            complete=result.complete,
            # pages read back from the run's own archive on resume: as the run counted them
            counts=replace(result.counts(), replayed=report.counts.replayed),
            events=result.events,
        ),
    )


def accept_run(
    site: str,
    run_id: str,
    *,
    selectors_dir: Path = Path("selectors"),
    state_dir: Path = Path(".anchorpath/state"),
    by: str | None = None,
) -> RunResult:
    """Accept the quarantined ``drift`` run ``run_id`` of ``site`` (see the module docstring).

    ``site`` is a site id or selector file path, as for ``anchorpath run``; ``by`` defaults to
    the login name. Holds the site's lock, so no run of the site commits meanwhile. Returns the
    run as committed (verdict ``accepted``, its events); raises :class:`AcceptRefused` when it
    cannot be accepted and other ``AnchorpathError`` subclasses when the state is unreadable.
    """
    sf = load_selector_file(find_selector_file(site, selectors_dir))
    site_id = sf.site.id
    with SiteLock(state_dir, site_id):
        store = Store(state_dir / DB_NAME)
        try:
            run = _check(store.runs(site_id), run_id, site_id, store.path)
            plan, records, pages = _load_quarantine(run, state_dir)
            accepted = replace(
                run, verdict="accepted", accepted_by=by or default_acceptor(), accepted_at=now()
            )
            outcome = commit_records(store, accepted, records, plan, page_rows(pages))
        finally:
            store.close()
    emitted = {i for i, r in enumerate(records) if r.page_type in plan.emit}
    result = RunResult(
        run.id,
        site_id,
        "accepted",
        EXIT_OK,
        Path(run.run_dir) if run.run_dir else state_dir / "runs" / site_id / run.id,
        run.selector_version or 0,
        complete=outcome.complete,
        pages=len(pages),
        records=len(emitted),
        invalid=len(emitted & set(plan.bad)),
        events=outcome.events,
        unseen=len(outcome.unseen),
        rekeyed=len(outcome.rekeyed),
        duplicates=outcome.duplicates,
        reason=run.error,
        accepted_by=accepted.accepted_by,
        accepted_at=accepted.accepted_at,
    )
    _rewrite_report(result)
    return result
