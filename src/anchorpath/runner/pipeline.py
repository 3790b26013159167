"""The daily run of one site: fetch → WARC → extract → validate → drift gate → commit or quarantine.

:func:`run_site` is the library behind ``anchorpath run``. One run:

1. takes the site's lock (``lock.py``) and loads the current selector file;
2. finds an unfinished run of the site (a ``checkpoint.json`` left by a crash or ``kill -9``)
   and resumes it, or starts a new one in ``<state>/runs/<site>/<run_id>/``;
3. crawls (``crawl.py``): every page goes through the polite fetcher, which archives it to the
   run's WARC before anything parses it; pages already archived by an earlier attempt of the
   same run are replayed from the WARC instead of fetched again; progress is checkpointed after
   every page;
4. extracts records, validates each against the JSON Schema derived from the field types
   (``validate.py``) and computes the run's field statistics;
5. decides the verdict:

   ``blocked``
       the site refused (robots.txt on a start URL, 401/403, login wall, CAPTCHA) – exit 4;
       a page that yields no values but shows a password field counts as a login wall;
   ``error``
       no page could be fetched, or something broke – exit 1;
   ``empty-source``
       the site answered with its usual page structure (anchor labels present) but listed no
       records – nothing is committed, exit 0;
   ``drift``
       the drift gate (``drift.py``) found the output's shape off the baseline, or more than
       10 % of the records broke their schema – results quarantined (with the
       :class:`CommitPlan` that lets a person accept a false alarm later, ``accept.py``),
       alert bundle written, exit 3;
   ``ok``
       events computed and committed in one transaction – exit 0.

Records of page types with ``emit: true`` go to the store, identified by the selector file's
``key`` fields. When several emitting page types yield a record with the same key (a listing
row and its detail page), they are merged field by field: a non-empty value beats an empty one,
and on conflict the page type without a ``record_root`` (one record per page: the detail page,
the fuller view) wins over a listing row. Records that break their schema are not stored; their
keys still count as seen, so a bad row never turns into a ``withdrawn`` event.

``withdrawn`` is only inferred from a complete crawl (no cap hit, every page fetched, no
``--url`` selection, every emitted record identifiable). On an incomplete accepted run, fields
that came back empty keep their stored values rather than being recorded as deleted.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import itertools
import json
import secrets
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from anchorpath._config import FetchConfig, Settings
from anchorpath._errors import (
    AnchorpathError,
    ExtractionError,
    FetchError,
    OriginBlocked,
    RobotsDisallowed,
    RunError,
)
from anchorpath.runner.changerate import assess
from anchorpath.runner.checkpoint import (
    ArchivedPage,
    Checkpoint,
    archived_pages,
    load_checkpoint,
    remove_checkpoint,
    save_checkpoint,
)
from anchorpath.runner.crawl import CrawlItem, CrawlState, Frontier
from anchorpath.runner.lock import SiteLock
from anchorpath.runner.store import (
    DB_NAME,
    Event,
    PageRow,
    RunRow,
    Store,
    StoredRecord,
    canonical_json,
    compute_events,
)
from anchorpath.runner.validate import RecordValidator
from anchorpath.selectors.evaluate import PageResult, compile_selectors, evaluate_page, parse_html
from anchorpath.selectors.load import find_selector_file, load_selector_file
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "ACCEPT_PLAN",
    "COMMITTED",
    "EXIT_BLOCKED",
    "EXIT_DRIFT",
    "EXIT_ERROR",
    "EXIT_OK",
    "EXIT_USAGE",
    "CommitPlan",
    "FetcherFactory",
    "RunOptions",
    "RunResult",
    "commit_records",
    "merge_records",
    "run_site",
]

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_DRIFT = 3
EXIT_BLOCKED = 4
_EXIT = {"ok": EXIT_OK, "empty-source": EXIT_OK, "drift": EXIT_DRIFT, "blocked": EXIT_BLOCKED}

#: Share of emitted records breaking their schema above which the run counts as drift.
INVALID_SHARE_DRIFT = 0.10
#: Accepted runs kept in the drift gate's rolling baseline.
BASELINE_WINDOW = 14
#: Snapshots per side put into an alert bundle.
BUNDLE_SNAPSHOTS = 6


class FetchResultLike(Protocol):
    url: str
    final_url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    charset: str | None
    not_modified: bool


class FetcherLike(Protocol):
    def fetch(
        self, url: str, *, conditional: bool = True, render: str = "http"
    ) -> FetchResultLike: ...


#: ``(fetch_config, warc_path, cache_dir, on_event) -> fetcher``; the fetcher archives to
#: ``warc_path`` before returning a page. Tests pass their own.
FetcherFactory = Callable[[FetchConfig, Path, Path, Callable[[Any], None]], Any]

Progress = Callable[[str, Mapping[str, Any]], None]


@dataclass(frozen=True)
class RunOptions:
    """What ``anchorpath run`` was asked to do."""

    site: str
    selectors_dir: Path = Path("selectors")
    state_dir: Path = Path(".anchorpath/state")
    urls: tuple[str, ...] = ()
    full: bool = False
    resume: bool = False
    base_url: str | None = None
    settings: Settings = field(default_factory=Settings)


@dataclass
class RunResult:
    """What a run did; ``exit_code`` is what the CLI exits with."""

    run_id: str
    site: str
    verdict: str
    exit_code: int
    run_dir: Path
    selector_version: int = 0
    resumed: bool = False
    complete: bool = False
    pages: int = 0
    replayed: int = 0
    records: int = 0
    invalid: int = 0
    events: list[Event] = field(default_factory=list)
    drift: dict[str, Any] | None = None
    bundle: Path | None = None
    reason: str | None = None
    errors: list[str] = field(default_factory=list)
    change_rate: dict[str, Any] | None = None
    fetch_counters: dict[str, Any] = field(default_factory=dict)
    took_over_lock: dict[str, Any] | None = None
    accepted_by: str | None = None
    accepted_at: str | None = None

    def counts(self) -> dict[str, int]:
        kinds = [e.kind for e in self.events]
        return {
            "pages": self.pages,
            "records": self.records,
            "invalid": self.invalid,
            "new": kinds.count("new"),
            "changed": kinds.count("changed"),
            "withdrawn": kinds.count("withdrawn"),
        }


# -- fetching -----------------------------------------------------------------------------------


def default_fetcher(
    config: FetchConfig, warc_path: Path, cache_dir: Path, on_event: Callable[[Any], None]
) -> Any:
    """The polite fetcher, archiving to ``warc_path``."""
    from anchorpath.runner.fetch import PoliteFetcher
    from anchorpath.runner.warc import WarcWriter

    return PoliteFetcher(
        config, warc=WarcWriter(warc_path), cache_dir=str(cache_dir), on_event=on_event
    )


def _site_config(base: FetchConfig, sf: SelectorFile) -> FetchConfig:
    """Per-site politeness from the selector file: it may only slow the crawler down."""
    over: dict[str, Any] = {}
    for name, value in sf.fetch.politeness.items():
        current = getattr(base, name, None)
        if current is None:
            continue
        if name == "max_attempts":
            over[name] = min(int(current), int(value))
        else:
            over[name] = max(float(current), float(value))
    return replace(base, **over) if over else base


def _counters(counters: Any) -> dict[str, Any]:
    """The fetcher's politeness counters as a plain dict (public fields of the dataclass)."""
    if counters is None or not dataclasses.is_dataclass(counters):
        return {}
    return {
        f.name: getattr(counters, f.name)
        for f in dataclasses.fields(counters)
        if not f.name.startswith("_")
    }


def _unreachable(exc: Exception) -> bool:
    """robots.txt could not be fetched at all (network error, 5xx): RFC 9309 makes that a
    complete disallow, but for the scheduler the site is down, not refusing us."""
    return isinstance(exc, RobotsDisallowed) and exc.reason == "unavailable"


def _login_wall(doc: Any, page: PageResult) -> bool:
    """A page that yields nothing but holds a password field is a login wall.

    The fetcher catches the common wall patterns; this second check runs after extraction, so
    it also sees walls in any language or encoding. Pages with records are never called walls
    (many sites show a login box beside their content).
    """
    filled = any(any(v not in (None, "", []) for v in r.values.values()) for r in page.records)
    if filled:
        return False
    return bool(
        doc.xpath("boolean(//input[translate(@type, 'PASSWORD', 'password') = 'password'])")
    )


def _close(obj: Any) -> None:
    close = getattr(obj, "close", None)
    if callable(close):
        close()


# -- helpers ------------------------------------------------------------------------------------


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _new_run_id() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ") + "-" + secrets.token_hex(3)


def record_key(values: Mapping[str, Any], key_fields: Sequence[str]) -> str | None:
    """The natural key of a record: the key field's value (several: canonical JSON list)."""
    parts = [values.get(k) for k in key_fields]
    if any(p is None or p == "" or p == [] for p in parts):
        return None
    if len(parts) == 1:
        return str(parts[0]) if not isinstance(parts[0], str) else parts[0]
    return canonical_json(parts)


def _runs_dir(options: RunOptions, site: str) -> Path:
    return options.state_dir / "runs" / site


def _segments(run_dir: Path) -> list[Path]:
    return sorted(run_dir.glob("pages-*.warc.gz"))


def _options_fingerprint(options: RunOptions) -> dict[str, Any]:
    return {"urls": list(options.urls), "full": options.full, "base_url": options.base_url}


@dataclass
class _Page:
    """What one page contributed (kept in the checkpoint)."""

    url: str
    final_url: str
    status: int
    etag: str | None
    last_modified: str | None
    sha256: str
    page_type: str | None
    records: int
    record_root_count: int | None
    anchors_present: dict[str, bool]
    source: str  # fetch | archive

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _page_result(p: Mapping[str, Any]) -> PageResult:
    """The drift-relevant part of a page, rebuilt from the checkpoint."""
    return PageResult(
        p["url"],
        p["page_type"],
        (),
        record_root_count=p["record_root_count"],
        anchors_present=dict(p["anchors_present"]),
    )


# -- the run ------------------------------------------------------------------------------------


class _Run:
    """State of one run while it executes (kept out of the public API)."""

    def __init__(
        self,
        options: RunOptions,
        sf: SelectorFile,
        sf_path: Path,
        store: Store,
        fetcher_factory: FetcherFactory,
        progress: Progress,
    ) -> None:
        self.options = options
        self.sf = sf
        self.sf_path = sf_path
        self.store = store
        self.fetcher_factory = fetcher_factory
        self.progress = progress
        self.sf_sha = hashlib.sha256(sf_path.read_bytes()).hexdigest()
        self.frontier = Frontier(
            sf,
            base_url=options.base_url,
            only_urls=options.urls,
            max_url_length=options.settings.fetch.max_url_length,
        )
        self.compiled = compile_selectors(sf)
        self.validator = RecordValidator(sf.page_types)
        self.emit = {name for name, pt in sf.page_types.items() if pt.emit}
        self.fetcher: Any = None

    # .. resume ..................................................................................

    def _find_unfinished(self) -> Checkpoint | None:
        root = _runs_dir(self.options, self.sf.site.id)
        if not root.is_dir():
            return None
        for run_dir in sorted(root.iterdir(), reverse=True):
            cp = load_checkpoint(run_dir) if run_dir.is_dir() else None
            if cp is None:
                continue
            if any(r.id == cp.run_id for r in self.store.runs(self.sf.site.id, limit=50)):
                # Committed, then killed before the checkpoint was removed: nothing to resume.
                remove_checkpoint(run_dir)
                continue
            same = cp.selector_sha256 == self.sf_sha and cp.options == _options_fingerprint(
                self.options
            )
            if same:
                return cp
            # The selector file or the request changed since: that run cannot be finished as
            # it was started. Keep its files for inspection, but stop offering it.
            (run_dir / "checkpoint.json").rename(run_dir / "checkpoint.abandoned.json")
            self.progress("note", {"message": f"abandoned unfinished run {cp.run_id} (changed)"})
        return None

    # .. main ....................................................................................

    def execute(self) -> RunResult:
        options, sf = self.options, self.sf
        cp = self._find_unfinished()
        resumed = cp is not None
        if cp is None:
            run_id = _new_run_id()
            cp = Checkpoint(
                run_id=run_id,
                site=sf.site.id,
                started_at=_now(),
                selector_version=sf.version,
                selector_sha256=self.sf_sha,
                options=_options_fingerprint(options),
                crawl=self.frontier.start().to_dict(),
            )
        else:
            cp.attempts += 1
        run_dir = _runs_dir(options, sf.site.id) / cp.run_id
        run_dir.mkdir(parents=True, exist_ok=True)
        archive = archived_pages(_segments(run_dir)) if resumed else {}
        segment = run_dir / f"pages-{cp.attempts - 1:02d}.warc.gz"
        cp.warc_segments = [p.name for p in _segments(run_dir)]
        if segment.name not in cp.warc_segments:
            cp.warc_segments.append(segment.name)
        save_checkpoint(run_dir, cp)
        result = RunResult(
            cp.run_id, sf.site.id, "error", EXIT_ERROR, run_dir, sf.version, resumed=resumed
        )
        self.progress(
            "start",
            {
                "run_id": cp.run_id,
                "site": sf.site.id,
                "resumed": resumed,
                "done": len(cp.crawl.get("done", [])),
                "run_dir": str(run_dir),
            },
        )
        state = CrawlState.from_dict(cp.crawl)
        blocked: str | None = None
        fetch_errors: list[str] = list(cp.errors)
        config = _site_config(options.settings.fetch, sf)
        cache_dir = options.state_dir / "cache" / sf.site.id
        try:
            while True:
                item = self.frontier.pop(state)
                if item is None:
                    break
                try:
                    page = self._one_page(item, archive, cp, config, segment, cache_dir)
                except (OriginBlocked, RobotsDisallowed) as exc:
                    fetch_errors.append(f"{item.url}: {exc}")
                    if _unreachable(exc):
                        # No robots.txt because the site is down: an error, not a refusal.
                        break
                    if isinstance(exc, OriginBlocked) or item.via in ("start", "url"):
                        blocked = f"{type(exc).__name__}: {exc}"
                        break
                    page_links: tuple[str | None, tuple[str, ...]] = (None, ())
                except (FetchError, ExtractionError) as exc:
                    fetch_errors.append(f"{item.url}: {exc}")
                    page_links = (None, ())
                else:
                    page_links = page
                self.frontier.finish(state, item, next_url=page_links[0], links=page_links[1])
                cp.crawl = state.to_dict()
                cp.errors = fetch_errors
                save_checkpoint(run_dir, cp)
                self.progress(
                    "page",
                    {
                        "url": item.url,
                        "done": len(state.done),
                        "queued": len(state.frontier),
                        "records": sum(1 for r in cp.records if r["page_type"] in self.emit),
                        "errors": len(fetch_errors),
                    },
                )
        finally:
            if self.fetcher is not None:
                result.fetch_counters = _counters(getattr(self.fetcher, "counters", None))
                _close(self.fetcher)
        result.pages = len(cp.pages)
        result.replayed = sum(1 for p in cp.pages if p["source"] == "archive")
        result.errors = fetch_errors
        cp.crawl = state.to_dict()
        self.progress("phase", {"name": "checking"})
        self._decide(cp, state, result, blocked)
        remove_checkpoint(run_dir)
        return result

    def _one_page(
        self,
        item: CrawlItem,
        archive: dict[str, ArchivedPage],
        cp: Checkpoint,
        config: FetchConfig,
        segment: Path,
        cache_dir: Path,
    ) -> tuple[str | None, tuple[str, ...]]:
        """Fetch (or replay) one page, extract it and add its records to the checkpoint."""
        archived = archive.get(item.url)
        if archived is not None and 200 <= archived.status < 300:
            body, headers, final_url, status = (
                archived.body,
                archived.headers,
                archived.url,
                archived.status,
            )
            charset = None
            source = "archive"
        else:
            if self.fetcher is None:
                self.fetcher = self.fetcher_factory(
                    config, segment, cache_dir, lambda ev: self.progress("fetch", {"event": ev})
                )
            conditional = config.conditional and not self.options.full
            res = self.fetcher.fetch(item.url, conditional=conditional, render=self.sf.fetch.render)
            if res.not_modified and not res.body:
                res = self.fetcher.fetch(item.url, conditional=False, render=self.sf.fetch.render)
            body, headers, final_url, status = res.body, res.headers, res.final_url, res.status
            charset = res.charset
            source = "fetch"
        lower = {k.lower(): v for k, v in dict(headers).items()}
        doc = parse_html(body, charset)
        pr = evaluate_page(self.compiled, doc, final_url or item.url)
        if _login_wall(doc, pr):
            raise OriginBlocked(
                f"{item.url}: login wall (a password form where the page's records should be)",
                url=item.url,
                reason="login-wall",
            )
        for rec in pr.records:
            cp.records.append(
                {
                    "page_type": rec.page_type,
                    "url": rec.url,
                    "values": dict(rec.values),
                    "problems": list(rec.problems),
                }
            )
        page = _Page(
            url=item.url,
            final_url=final_url,
            status=status,
            etag=lower.get("etag"),
            last_modified=lower.get("last-modified"),
            sha256=hashlib.sha256(body).hexdigest(),
            page_type=pr.page_type,
            records=len(pr.records),
            record_root_count=pr.record_root_count,
            anchors_present=dict(pr.anchors_present),
            source=source,
        )
        cp.pages.append(page.to_dict())
        return pr.next_url, pr.links

    # .. verdict ..................................................................................

    def _decide(
        self, cp: Checkpoint, state: CrawlState, result: RunResult, blocked: str | None
    ) -> None:
        sf = self.sf
        site = sf.site.id
        emit = {name for name, pt in sf.page_types.items() if pt.emit}
        records = cp.records
        page_results = [_page_result(p) for p in cp.pages]
        result.records = sum(1 for r in records if r["page_type"] in emit)

        # Validation: every record against its page type's schema.
        invalid: list[dict[str, Any]] = []
        bad: set[int] = set()
        for i, r in enumerate(records):
            probs = self.validator.problems(r["page_type"], r["values"]) + r["problems"]
            if probs:
                bad.add(i)
                invalid.append({**r, "schema_problems": probs})
        invalid_emitted = [r for r in invalid if r["page_type"] in emit]
        result.invalid = len(invalid_emitted)

        stats = self._stats(records, page_results)
        stats_dict = stats.to_dict() if stats is not None else None
        baseline = self._baseline()
        drift_dict: dict[str, Any] | None = None
        drift_obj: Any = None
        verdict: str
        if blocked:
            verdict, result.reason = "blocked", blocked
        elif not cp.pages:
            verdict = "error"
            result.reason = "no page could be fetched" + (
                f": {result.errors[0]}" if result.errors else ""
            )
        elif result.records == 0 and self._looks_empty(cp.pages):
            verdict = "empty-source"
            result.reason = "the site answered with its usual pages but listed no records"
        else:
            drift_obj = self._check(stats, baseline)
            if result.records and len(invalid_emitted) / result.records > INVALID_SHARE_DRIFT:
                drift_obj = self._add_validation_evidence(drift_obj, invalid_emitted, result)
            if drift_obj is not None:
                drift_dict = drift_obj.to_dict()
            verdict = "drift" if drift_obj is not None and drift_obj.verdict == "drift" else "ok"
            if verdict == "drift":
                names = sorted(drift_obj.fields) or ["page structure"]
                more = f" and {len(names) - 6} more" if len(names) > 6 else ""
                result.reason = f"{len(names)} field(s) off the baseline: " + (
                    ", ".join(names[:6]) + more
                )
        result.drift = drift_dict
        # How much of the site this run saw (reported for every verdict; withdrawals also need
        # every emitted record to be identifiable, checked below).
        result.complete = self.frontier.complete(state) and not result.errors and not blocked

        finished = _now()
        run_row = RunRow(
            id=cp.run_id,
            site=site,
            started_at=cp.started_at,
            finished_at=finished,
            verdict=verdict,
            selector_version=sf.version,
            warc_path=",".join(str(result.run_dir / s) for s in cp.warc_segments),
            run_dir=str(result.run_dir),
            pages=result.pages,
            records=result.records,
            error=result.reason if verdict != "ok" else None,
        )
        quarantine: Path | None = None
        plan = CommitPlan(
            key_fields=list(sf.key),
            emit=sorted(emit),
            listing_types=sorted(n for n, pt in sf.page_types.items() if pt.record_root),
            bad=sorted(bad),
            crawl_complete=self.frontier.complete(state) and not result.errors,
            stats=stats_dict,
        )
        if verdict == "ok":
            self.progress("phase", {"name": "committing"})
            result.events, result.complete = commit_records(
                self.store, run_row, records, plan, _page_rows(cp.pages)
            )
        else:
            if verdict in ("drift", "blocked"):
                quarantine = self._quarantine(cp, result.run_dir, invalid)
            if verdict == "drift":
                # Everything ``anchorpath accept`` needs to commit these records later exactly
                # as this run would have, even after the selector file changed.
                (quarantine or result.run_dir).joinpath(ACCEPT_PLAN).write_text(
                    json.dumps(plan.to_dict(), ensure_ascii=False), encoding="utf-8"
                )
            self.store.commit_run(run_row)
        result.verdict = verdict
        result.exit_code = _EXIT.get(verdict, EXIT_ERROR)
        result.change_rate = self._change_rate()

        if verdict == "drift" and drift_obj is not None:
            result.bundle = self._bundle(cp, result, drift_obj)
        self._report(cp, result, stats_dict, baseline, quarantine, finished)

    def _stats(self, records: list[dict[str, Any]], pages: list[PageResult]) -> Any:
        drift = _drift_module()
        if drift is None:
            return None
        parts = []
        for name, pt in self.sf.page_types.items():
            recs = [r["values"] for r in records if r["page_type"] == name]
            if recs or any(p.page_type == name for p in pages):
                parts.append(drift.field_stats(recs, pt, pages))
        stats = drift.merge_stats(parts)
        stats.total_pages = len(pages)
        stats.unmatched_pages = sum(1 for p in pages if p.page_type is None)
        return stats

    def _baseline(self) -> list[Any]:
        drift = _drift_module()
        if drift is None:
            return []
        real = [
            drift.RunStats.from_dict(r.stats)
            for r in reversed(
                self.store.runs(self.sf.site.id, verdicts=COMMITTED, limit=BASELINE_WINDOW)
            )
            if isinstance(r.stats, dict)
        ]
        if len(real) >= 3:
            return real
        seed = drift.seed_baseline(self.sf, _fixture_records(self.sf, self.sf_path))
        return list((seed + real)[-BASELINE_WINDOW:])

    def _check(self, stats: Any, baseline: list[Any]) -> Any:
        drift = _drift_module()
        if drift is None or stats is None:
            return None
        return drift.check_drift(stats, baseline)

    def _add_validation_evidence(
        self, drift_obj: Any, invalid: list[dict[str, Any]], result: RunResult
    ) -> Any:
        drift = _drift_module()
        if drift_obj is None and drift is not None:
            drift_obj = drift.DriftResult("ok", 0.0)
        if drift_obj is None:
            return None
        # Name fields as the drift gate does: ``page_type.field`` when several page types ran.
        qualify = len({r["page_type"] for r in invalid}) > 1 or len(self.sf.page_types) > 1
        by_field: dict[str, int] = {}
        for r in invalid:
            for p in r["schema_problems"]:
                name = p.split(":", 1)[0]
                name = f"{r['page_type']}.{name}" if qualify else name
                by_field[name] = by_field.get(name, 0) + 1
        for name, n in sorted(by_field.items()):
            drift_obj.fields.setdefault(name, []).append(
                f"schema: {n} of {result.records} records invalid"
            )
        drift_obj.verdict = "drift"
        return drift_obj

    def _looks_empty(self, pages: list[dict[str, Any]]) -> bool:
        """No records, yet every page matched a page type and showed all its anchor labels:
        the site is empty, the selectors are not broken. Without anchors to check, an empty
        result is left to the drift gate (which will call a collapsed record root drift)."""
        if any(p["page_type"] is None for p in pages):
            return False
        anchors = [v for p in pages for v in p["anchors_present"].values()]
        return bool(anchors) and all(anchors)

    def _quarantine(self, cp: Checkpoint, run_dir: Path, invalid: list[dict[str, Any]]) -> Path:
        q = run_dir / "quarantine"
        q.mkdir(parents=True, exist_ok=True)
        with (q / "records.jsonl").open("w", encoding="utf-8") as fh:
            for r in cp.records:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
        (q / "invalid.json").write_text(
            json.dumps(invalid, ensure_ascii=False, indent=1), encoding="utf-8"
        )
        (q / "pages.json").write_text(json.dumps(cp.pages, indent=1), encoding="utf-8")
        return q

    def _change_rate(self) -> dict[str, Any]:
        runs = list(reversed(self.store.runs(self.sf.site.id, verdicts=COMMITTED)))
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
        rate = assess(changed, interval)
        d = rate.to_dict()
        d["lambda_hat"] = d["rate_per_day"]
        d["lambda_recent"] = d["recent_rate_per_day"]
        d["note"] = (
            f"prior {rate.rate}/day until 14 accepted runs ({rate.runs} so far)"
            if rate.from_prior
            else f"Poisson estimate from {rate.runs} runs, {rate.changes} with changes"
        )
        return d

    def _snapshots(self, run_dir: Path, urls: list[str]) -> list[tuple[str, bytes]]:
        pages = archived_pages(_segments(run_dir))
        out = []
        for url in urls:
            page = pages.get(url)
            if page is not None:
                out.append((url, page.body))
            if len(out) >= BUNDLE_SNAPSHOTS:
                break
        return out

    def _bundle(self, cp: Checkpoint, result: RunResult, drift_obj: Any) -> Path | None:
        try:
            from anchorpath.runner.bundle import write_alert_bundle
        except ImportError:
            return None
        good_runs = self.store.runs(self.sf.site.id, verdicts=COMMITTED, limit=1)
        last_good: list[tuple[str, bytes]] = []
        last_records: list[dict[str, Any]] = []
        if good_runs and good_runs[0].run_dir:
            good_dir = Path(good_runs[0].run_dir)
            rows = self.store._query(
                "SELECT url FROM pages WHERE run_id = ? ORDER BY rowid", (good_runs[0].id,)
            )
            last_good = self._snapshots(good_dir, [r[0] for r in rows])
            for url, body in last_good:
                pr = evaluate_page(self.compiled, parse_html(body), url)
                last_records += [r.to_dict() for r in pr.records]
        failing = self._snapshots(result.run_dir, [p["url"] for p in cp.pages])
        failing_urls = {u for u, _ in failing}
        failing_records = [
            {"_url": r["url"], "_page_type": r["page_type"], **r["values"]}
            for r in cp.records
            if r["url"] in failing_urls
        ]
        return Path(
            write_alert_bundle(
                result.run_dir,
                self.sf_path,
                last_good,
                last_records,
                failing,
                drift_obj,
                failing_records=failing_records,
                run_id=cp.run_id,
            )
        )

    def _report(
        self,
        cp: Checkpoint,
        result: RunResult,
        stats: dict[str, Any] | None,
        baseline: list[Any],
        quarantine: Path | None,
        finished: str,
    ) -> None:
        try:
            from anchorpath.runner.report import write_reports
        except ImportError:
            return
        paths = {
            "database": str(self.options.state_dir / DB_NAME),
            "warc": ", ".join(str(result.run_dir / s) for s in cp.warc_segments),
            "selector_file": str(self.sf_path),
        }
        if quarantine:
            paths["quarantine"] = str(quarantine)
        if result.bundle:
            paths["bundle"] = str(result.bundle)
            paths["alert"] = str(result.run_dir / "alert.json")
        summary: dict[str, Any] = {
            "run_id": cp.run_id,
            "site": self.sf.site.id,
            "verdict": result.verdict,
            "reason": result.reason,
            "selector_version": self.sf.version,
            "started_at": cp.started_at,
            "finished_at": finished,
            "resumed": result.resumed,
            "complete": result.complete,
            "counts": {**result.counts(), "replayed": result.replayed},
            "events": [
                {
                    "kind": e.kind,
                    "key": e.key,
                    **(
                        {"changes": {k: [o, n] for k, (o, n) in e.fields.items()}}
                        if e.kind == "changed"
                        else {}
                    ),
                }
                for e in result.events
            ],
            "drift": result.drift,
            "field_stats": stats,
            "baseline_history": [b.to_dict() for b in baseline],
            "fetch": result.fetch_counters,
            "errors": result.errors,
            "change_rate": result.change_rate,
            "paths": paths,
        }
        write_reports(result.run_dir, summary)


#: Verdicts whose results are in the store: the drift gate's baseline and the change rate.
COMMITTED = ("ok", "accepted")
#: File in a drift run's ``quarantine/`` holding its :class:`CommitPlan`.
ACCEPT_PLAN = "accept.json"


@dataclass(frozen=True)
class CommitPlan:
    """How a run's extracted records become store rows: what an ok run commits at once and a
    drift run keeps in its quarantine until a person accepts it.

    ``bad`` are the indices of the records that broke their schema; ``listing_types`` the
    page types with a ``record_root`` (merged first, so detail pages override them);
    ``crawl_complete`` whether the crawl saw the whole site (no cap, no failed page, no
    ``--url`` selection); ``stats`` the run's field statistics (the drift gate's baseline).
    """

    key_fields: list[str]
    emit: list[str]
    listing_types: list[str]
    bad: list[int]
    crawl_complete: bool
    stats: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> CommitPlan:
        return cls(
            key_fields=[str(k) for k in d["key_fields"]],
            emit=[str(k) for k in d["emit"]],
            listing_types=[str(k) for k in d["listing_types"]],
            bad=[int(i) for i in d["bad"]],
            crawl_complete=bool(d["crawl_complete"]),
            stats=d.get("stats"),
        )


def merge_records(
    records: Sequence[Mapping[str, Any]], plan: CommitPlan
) -> tuple[dict[str, dict[str, Any]], set[str], int]:
    """Valid emitted records merged by key; keys of invalid ones; unidentifiable count."""
    bad = set(plan.bad)
    listing = set(plan.listing_types)
    unidentified = 0
    # List rows (record_root) first, so that detail pages override them; stable otherwise.
    ordered = sorted(
        (i for i, r in enumerate(records) if r["page_type"] in plan.emit),
        key=lambda i: 0 if records[i]["page_type"] in listing else 1,
    )
    seen: dict[str, dict[str, Any]] = {}
    invalid_keys: set[str] = set()
    for i in ordered:
        r = records[i]
        key = record_key(r["values"], plan.key_fields)
        if key is None:
            unidentified += 1
            continue
        if i in bad:
            invalid_keys.add(key)
            continue
        merged = seen.setdefault(key, {})
        for name, value in r["values"].items():
            if value not in (None, "", []) or name not in merged:
                merged[name] = value
    # A key with one bad source (say, its detail page broke) is not trusted this run.
    for key in invalid_keys:
        seen.pop(key, None)
    return dict(sorted(seen.items())), invalid_keys, unidentified


def commit_records(
    store: Store,
    run_row: RunRow,
    records: Sequence[Mapping[str, Any]],
    plan: CommitPlan,
    pages: Sequence[PageRow],
) -> tuple[list[Event], bool]:
    """Compute a run's events against the store's current records and commit them, the
    records, the pages and ``run_row`` (counts and statistics filled in) in one transaction.

    Returns the events and whether withdrawals were inferred (the crawl was complete and every
    emitted record identifiable). The caller holds the site lock.
    """
    seen, protected, unidentified = merge_records(records, plan)
    complete = plan.crawl_complete and not unidentified
    current = store.current(run_row.site)
    if not complete:
        seen = _keep_stored_fields(seen, current)
    # A key with an invalid row keeps its stored version: neither changed nor withdrawn.
    events = compute_events(
        current, {**_stored_values(protected, current), **seen}, complete=complete
    )
    kinds = [e.kind for e in events]
    stats_store = dict(plan.stats or {})
    stats_store["run_id"] = run_row.id
    row = replace(
        run_row,
        complete=complete,
        new=kinds.count("new"),
        changed=kinds.count("changed"),
        withdrawn=kinds.count("withdrawn"),
        stats=stats_store,
    )
    store.commit_run(row, seen=seen, events=events, pages=pages)
    return events, complete


def _page_rows(pages: Sequence[Mapping[str, Any]]) -> list[PageRow]:
    return [
        PageRow(
            p["url"],
            p["final_url"],
            p["status"],
            p["etag"],
            p["last_modified"],
            p["sha256"],
            p["page_type"],
            p["records"],
        )
        for p in pages
    ]


def _keep_stored_fields(
    seen: dict[str, dict[str, Any]], current: Mapping[str, StoredRecord]
) -> dict[str, dict[str, Any]]:
    """On an incomplete run, an empty field is a missing page, not a deleted value."""
    out = {}
    for key, values in seen.items():
        old = current.get(key)
        if old is None:
            out[key] = values
            continue
        merged = dict(values)
        for name, value in old.values.items():
            if merged.get(name) in (None, "", []):
                merged[name] = value
        out[key] = merged
    return out


def _stored_values(
    keys: set[str], current: Mapping[str, StoredRecord]
) -> dict[str, dict[str, Any]]:
    return {k: dict(current[k].values) for k in keys if k in current}


def _fixture_records(sf: SelectorFile, sf_path: Path) -> list[dict[str, Any]]:
    """Expected records of the selector file's fixtures (files relative to the selector file)."""
    out: list[dict[str, Any]] = []
    for fx in sf.fixtures:
        if not fx.records:
            continue
        path = sf_path.parent / fx.records
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict):
            data = data.get("records", [])
        if isinstance(data, list):
            out += [d for d in data if isinstance(d, dict)]
    return out


def _drift_module() -> Any:
    """The drift gate, or None while it is not available (then every run passes the gate)."""
    try:
        from anchorpath.runner import drift
    except ImportError:
        return None
    return drift


def _ignore(kind: str, data: Mapping[str, Any]) -> None:
    return None


def run_site(
    options: RunOptions,
    *,
    fetcher_factory: FetcherFactory | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Run one site once (see the module docstring). Raises ``AnchorpathError`` subclasses for
    runs that cannot start (unknown site, invalid selector file, lock held); a run that starts
    always returns a :class:`RunResult` whose ``exit_code`` tells the scheduler what happened."""
    sf_path = find_selector_file(options.site, options.selectors_dir)
    sf = load_selector_file(sf_path)
    if not options.urls:
        for u in sf.fetch.start_urls:
            if not u.startswith(("http://", "https://")):
                raise RunError(f"{sf_path}: start URL {u!r} is not an http(s) URL")
    lock = SiteLock(options.state_dir, sf.site.id)
    with lock:
        store = Store(options.state_dir / DB_NAME)
        try:
            run = _Run(
                options, sf, sf_path, store, fetcher_factory or default_fetcher, progress or _ignore
            )
            try:
                result = run.execute()
            except AnchorpathError:
                raise
            except OSError as exc:
                raise RunError(f"{options.state_dir}: {exc}") from exc
            result.took_over_lock = lock.took_over
            return result
        finally:
            store.close()
