"""``anchorpath run``: the daily collection of one site, with a live progress display;
``anchorpath accept``: commit a quarantined drift run a person judged a false alarm."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from anchorpath._config import DEFAULT_CONTACT, Settings, load_settings
from anchorpath._errors import AnchorpathError, SiteStopped
from anchorpath._text import terminal_safe
from anchorpath.cli.options import (
    check_base_url,
    check_urls,
    config_option,
    executor_option,
    interrupted,
    output_console,
    selectors_option,
    state_option,
    urls_for_base,
)
from anchorpath.fetch.protocol import FetcherFactory
from anchorpath.runner.accept import accept_run
from anchorpath.runner.executor import open_executor, parse_executor
from anchorpath.runner.pipeline import run_site
from anchorpath.runner.progress import (
    Note,
    PageRead,
    Phase,
    ProgressEvent,
    RunStarted,
    SiteDone,
    SitesPlanned,
    Waited,
)
from anchorpath.runner.run_all import RunAllOptions, RunAllResult, run_all
from anchorpath.runner.run_types import EXIT_STOPPED, RunOptions, RunResult
from anchorpath.runner.verdict import Verdict
from anchorpath.selectors.load import find_selector_file, load_selector_file

__all__ = [
    "COMMANDS",
    "accept_cmd",
    "execute_run",
    "print_all_summary",
    "print_summary",
    "run_cmd",
    "run_demo",
]

_VERDICT_STYLE: dict[Verdict, str] = {
    "ok": "bold green",
    "accepted": "bold cyan",
    "empty-source": "bold yellow",
    "drift": "bold red",
    "blocked": "bold magenta",
    "error": "bold red",
    "replayed": "bold cyan",
    "stopped": "bold red",
}


def _style(verdict: str) -> str:
    """The rich style of a verdict (of a progress event's text, too)."""
    return next((style for v, style in _VERDICT_STYLE.items() if v == verdict), "bold")


_MAX_EVENT_ROWS = 25
_MAX_NEW_ROWS = 8
_NEW_FIELDS = 3  # values of a new record shown in its summary row


def _short(value: Any, limit: int = 40) -> str:
    text = "∅" if value is None else terminal_safe(value)
    return escape(text if len(text) <= limit else text[: limit - 1] + "…")


def _safe(value: Any) -> str:
    """Page-derived text for the console: no control characters, no rich markup."""
    return escape(terminal_safe(value))


class _Display:
    """Turns pipeline progress callbacks into a rich progress line."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = progress.add_task("starting", total=None, status="")
        self.wait = ""

    def __call__(self, event: ProgressEvent) -> None:
        match event:
            case RunStarted(run_id=run_id, resumed=resumed, done=done):
                what = "resuming" if resumed else "run"
                extra = f" ({done} pages done)" if resumed else ""
                self.progress.update(self.task, description=f"{what} {run_id}{extra}", status="")
            case PageRead(done=done, queued=queued, records=records, errors=errors):
                self.progress.update(
                    self.task,
                    description=(
                        f"pages {done} · queued {queued} · records {records}"
                        + (f" · errors {errors}" if errors else "")
                    ),
                    status=self.wait,
                )
            case Waited(seconds=seconds, reason=reason) if reason:
                self.wait = f"waited {seconds:.1f}s ({reason})"
                self.progress.update(self.task, status=self.wait)
            case Phase(name=name):
                self.progress.update(self.task, status=name)
            case Note(message=message):
                self.progress.console.print(f"[yellow]{_safe(message)}[/]")
            case _:
                pass


def execute_run(
    options: RunOptions,
    console: Console,
    *,
    fetcher_factory: FetcherFactory | None = None,
    show_progress: bool = True,
) -> RunResult:
    """Run the pipeline with a progress display on ``console`` (library part of the command)."""
    if not show_progress:
        # Quiet (or not a terminal): no progress line, but notes still reach the person.
        def notes(event: ProgressEvent) -> None:
            if isinstance(event, Note):
                console.print(_safe(event.message))

        return run_site(options, fetcher_factory=fetcher_factory, progress=notes)
    with _spinner(console) as progress:
        return run_site(options, fetcher_factory=fetcher_factory, progress=_Display(progress))


def _spinner(console: Console) -> Progress:
    """The transient progress line of `run` and `run --all`: spinner, site, status, elapsed."""
    return Progress(
        SpinnerColumn(),
        TextColumn("[bold]{task.description}"),
        TextColumn("[dim]{task.fields[status]}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )


def print_summary(result: RunResult, console: Console, *, elapsed: float | None = None) -> None:
    """The summary table, the events, and what to do next."""
    counts = result.counts()
    title = f"{result.site} · run {result.run_id}" + (" (resumed)" if result.resumed else "")
    table = Table(title=title, title_justify="left")
    for col in ("verdict", "pages", "records", "invalid", "new", "changed", "withdrawn", "exit"):
        table.add_column(col, justify="left" if col == "verdict" else "right")
    verdict = f"[{_style(result.verdict)}]{result.verdict}[/]"
    table.add_row(
        verdict,
        str(counts.pages) + (f" ({result.replayed} from WARC)" if result.replayed else ""),
        str(counts.records),
        str(counts.invalid),
        str(counts.new),
        str(counts.changed),
        str(counts.withdrawn),
        str(result.exit_code),
    )
    console.print(table)
    if result.took_over_lock:
        holder = result.took_over_lock
        console.print(
            f"[yellow]took over a stale lock of pid {holder.pid} "
            f"(started {holder.started}, no longer running)[/]"
        )
    _print_events(result, console)
    _print_notes(result, console)
    _print_next(result, console)
    took = f" in {elapsed:.1f}s" if elapsed is not None else ""
    console.print(f"[dim]report: {result.run_dir / 'report.html'}{took}[/]")


def _print_events(result: RunResult, console: Console) -> None:
    """The run's events: every change and withdrawal, a first run's wall of "new" cut short."""
    if not result.events:
        return
    ev_table = Table(show_header=True, header_style="bold", box=None)
    ev_table.add_column("event")
    ev_table.add_column("key")
    ev_table.add_column("what changed")
    style = {"new": "green", "changed": "yellow", "withdrawn": "red"}
    # Every change and withdrawal is shown; a first run's wall of "new" is cut short.
    others = [e for e in result.events if e.kind != "new"]
    news = [e for e in result.events if e.kind == "new"]
    shown = news[: max(0, min(_MAX_NEW_ROWS, _MAX_EVENT_ROWS - len(others)))] + others
    for ev in shown:
        if ev.kind == "new":  # a glimpse of the record (its values are in the report)
            items = list(ev.fields.items())
            what = "; ".join(f"{name}: {_short(new, 24)}" for name, (_, new) in items[:_NEW_FIELDS])
            if len(items) > _NEW_FIELDS:
                what += f"; +{len(items) - _NEW_FIELDS} more"
        else:
            what = "; ".join(
                f"{name}: {_short(old)} → {_short(new)}" for name, (old, new) in ev.fields.items()
            )
        ev_table.add_row(f"[{style[ev.kind]}]{ev.kind}[/]", _safe(ev.key), what)
    console.print(ev_table)
    hidden = len(result.events) - len(shown)
    if hidden > 0:
        console.print(f"… and {hidden} more (see the report)")


def _print_notes(result: RunResult, console: Console) -> None:
    """What the run set aside or could not tell: charset, extraction notes, duplicate keys,
    an incomplete crawl, a key change, unseen records."""
    for line in result.charset[:3]:
        console.print(f"[yellow]charset mismatch: {_safe(line)}[/]")
    if len(result.charset) > 3:
        console.print(f"[yellow]… and {len(result.charset) - 3} more pages (see the report)[/]")
    for line in result.extraction[:3]:
        console.print(f"[yellow]extraction: {_safe(line)}[/]")
    if len(result.extraction) > 3:
        console.print(f"[yellow]… and {len(result.extraction) - 3} more notes (see the report)[/]")
    if result.duplicates:
        keys = ", ".join(
            f"{_safe(k)} ({' and '.join(_safe(u) for u in pages[:2])})"
            for k, pages in list(result.duplicates.items())[:5]
        )
        more = f" and {len(result.duplicates) - 5} more" if len(result.duplicates) > 5 else ""
        console.print(
            f"[yellow]{len(result.duplicates)} duplicate key(s): different records carried "
            f"the same key, not stored this run: {keys}{more}. The key does not identify one "
            "record: choose another key (see the report).[/]"
        )
    if result.verdict == "ok" and not result.complete:
        console.print(
            "[yellow]incomplete crawl: only records whose page is gone (404/410) were marked "
            "withdrawn[/] " + (f"({_safe(result.errors[0])})" if result.errors else "")
        )
    if result.rekeyed:
        retired = result.complete and result.verdict in ("ok", "accepted")
        console.print(
            f"[yellow]key change: {result.rekeyed} record(s) stored under the selector file's "
            + (
                "earlier key were retired (withdrawn) by this complete run[/]"
                if retired
                else "earlier key stay current until the first complete run retires them[/]"
            )
        )
    if result.unseen:
        console.print(
            f"[dim]{result.unseen} stored record(s) not reached by this run: unseen, not "
            "withdrawn (a record is withdrawn only when its page is gone or a complete crawl "
            "of the listings no longer lists it)[/]"
        )


def _print_next(result: RunResult, console: Console) -> None:
    """Why the verdict, and what a person does next."""
    if result.verdict == "accepted":
        console.print(
            f"[bold cyan]accepted[/] by {result.accepted_by} at {result.accepted_at}: "
            "its records are committed and its statistics join the drift baseline"
            + (f" (the gate had said: {result.reason})" if result.reason else "")
        )
    elif result.reason and result.verdict != "ok":
        console.print(f"[bold]{result.verdict}[/]: {_safe(result.reason)}")
    if result.drift and result.verdict == "drift":
        # Every reason in full: this is what a person reads in the alert mail.
        for name, evidence in sorted(result.drift.fields.items()):
            for line in evidence or [""]:
                console.print(f"  [red]{_safe(name)}[/]: {_safe(line)}")
        for line in result.drift.structural:
            console.print(f"  [red]structure[/]: {_safe(line)}")
    stop = result.policy.stop if result.policy is not None else None
    if result.verdict == "stopped" and stop:
        for line in (stop.diff or "").splitlines():
            console.print(f"  [dim]{_safe(line)}[/]")
        console.print(
            "the site is refused until a person reviews this and runs: "
            f"[bold]anchorpath resume {result.site} --by NAME --reason TEXT[/]"
        )
    if result.bundle:
        console.print(f"alert bundle: {result.bundle}")
        console.print(
            f"next: [bold]anchorpath author repair {result.site} --bundle {result.bundle}[/]"
        )
    if result.verdict == "drift":
        console.print(
            f"false alarm? after review: [bold]anchorpath accept {result.site} {result.run_id}[/]"
        )
    rate = result.change_rate
    flags = [] if rate is None else [f for f in ("burst", "silent_stop") if getattr(rate, f)]
    if rate is not None and flags:
        console.print(f"[yellow]change-rate flags: {', '.join(flags)}[/] ({rate.note})")


@click.command("run")
@click.argument("sites", metavar="SITE | --all [SITE_GLOB ...]", nargs=-1)
@click.option(
    "--all",
    "all_sites",
    is_flag=True,
    help="Run every selector file of the selectors directory (or those whose name matches "
    "a SITE_GLOB), one politeness registry for all; exit with the most severe verdict.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="With --all: origin groups crawled at once (default: max(fetch.global_concurrency, "
    "32)); requests in flight stay capped by fetch.global_concurrency.",
)
@executor_option
@selectors_option
@state_option
@click.option(
    "--url",
    "urls",
    multiple=True,
    callback=check_urls,
    help="Run on exactly this page (repeatable); no crawl, never marks records withdrawn.",
)
@click.option("--full", is_flag=True, help="Fetch every page in full (no conditional requests).")
@click.option(
    "--resume",
    is_flag=True,
    help="Finish the site's unfinished run (a plain re-run also detects and resumes it).",
)
@click.option(
    "--base-url",
    callback=check_base_url,
    help="Replace the origin (scheme://host:port) of the selector file's start URLs and "
    "--url pages: a demo server on another port, a local or staging copy of the site.",
)
@click.option(
    "--accept-content-type",
    "content_types",
    multiple=True,
    metavar="TYPE",
    help="Take pages served as TYPE (repeatable; replaces [fetch] accept_content_types). "
    "Pages without a Content-Type or as application/octet-stream are taken anyway when their "
    "bytes are HTML.",
)
@click.option(
    "--purge",
    is_flag=True,
    help="After the run, apply the site's policy.retention_days (as `anchorpath purge`).",
)
@config_option
@click.option("-q", "--quiet", is_flag=True, help="No progress display.")
def run_cmd(
    sites: tuple[str, ...],
    all_sites: bool,
    workers: int | None,
    executor: str,
    selectors_dir: Path | None,
    state_dir: Path | None,
    urls: tuple[str, ...],
    full: bool,
    resume: bool,
    base_url: str | None,
    content_types: tuple[str, ...],
    purge: bool,
    config_file: Path | None,
    quiet: bool,
) -> None:
    """Collect SITE now: crawl, extract, validate, check for drift, record what changed.

    SITE is a site id (its selector file is SELECTORS/SITE.json) or a selector file path.
    Results are committed only when the drift gate passes; otherwise they are quarantined in
    the run directory and nothing in the database changes.

    With --all, every site of the selectors directory (or those matching the SITE_GLOBs) is
    run in one job: sites sharing an origin share one pace and one robots.txt, different
    origins proceed at once. Each site keeps its own lock, checkpoint, drift gate, report and
    verdict; a failing site does not stop the others; a killed job is resumed site by site
    by the next --all. One summary table, one exit code: the most severe verdict
    (5 > 4 > 3 > 1 > 0). --executor local:N crawls in N worker processes of this machine,
    --executor dask://HOST:PORT on a Dask cluster (one task per origin group); this process
    alone writes the database.

    \b
    Exit codes:
      0  ok (or empty-source: the site listed nothing; nothing changed)
      1  error (no page fetched, lock held, bad selector file, ...)
      2  usage error
      3  drift: results quarantined, alert.json + re-authoring bundle written
      4  blocked by the site (robots.txt, 401/403, login wall, CAPTCHA)
      5  stopped: robots.txt or terms changed, 401/403 on a start URL, repeated 429,
         walls; the site is refused until `anchorpath resume SITE --by NAME --reason TEXT`

    \b
    Examples:
      anchorpath run mfds-dmf
      anchorpath run mfds-dmf --state /var/lib/anchorpath --selectors /etc/anchorpath/selectors
      anchorpath run mfds-dmf --url 'https://example.org/dmf/view?id=1402'
      anchorpath run mfds-dmf --resume
      anchorpath run mfds-dmf --purge      # then drop what is older than retention_days
      anchorpath run mfds-dmf --accept-content-type text/html --accept-content-type text/x-html
      anchorpath run mfds-dmf --base-url http://127.0.0.1:8765   # a local copy of the site
      anchorpath run mfds-dmf --base-url http://127.0.0.1:8765 --url 'https://example.org/dmf/view?id=1402'
      anchorpath run --all
      anchorpath run --all 'mfds-*' --workers 8
      anchorpath run --all --executor local:2
      anchorpath run --all --executor dask://10.0.0.5:8786
    """
    console = output_console()
    overrides = {"fetch.accept_content_types": list(content_types) if content_types else None}
    if all_sites:
        for flag, given in (
            ("--url", urls),
            ("--resume", resume),
            ("--base-url", base_url),
            ("--purge", purge),
        ):
            if given:
                raise click.UsageError(f"{flag} cannot be combined with --all")
        _run_all_cmd(
            sites, workers, executor, selectors_dir, state_dir, full, overrides, config_file, quiet
        )
        return
    if len(sites) != 1:
        raise click.UsageError(
            "give exactly one SITE (or --all [SITE_GLOB ...])" if sites else "missing SITE"
        )
    if workers is not None or executor != "local":
        raise click.UsageError("--workers and --executor only apply to --all")
    site = sites[0]
    try:
        settings: Settings = load_settings(config_file, overrides=overrides)
        if base_url and urls:
            sf = load_selector_file(
                find_selector_file(site, selectors_dir or Path(settings.paths.selectors_dir))
            )
            urls = urls_for_base(urls, sf.fetch.start_urls[0], base_url)
        options = RunOptions(
            site=site,
            selectors_dir=selectors_dir or Path(settings.paths.selectors_dir),
            state_dir=state_dir or Path(settings.paths.state_dir),
            urls=urls,
            full=full,
            resume=resume,
            base_url=base_url,
            settings=settings,
        )
        started = time.monotonic()
        result = execute_run(options, console, show_progress=not quiet and console.is_terminal)
    except SiteStopped as exc:
        click.echo(f"Error: {terminal_safe(exc)}", err=True)
        raise SystemExit(EXIT_STOPPED) from exc
    except AnchorpathError as exc:
        raise click.ClickException(terminal_safe(exc)) from exc
    except KeyboardInterrupt:
        raise interrupted(
            f"nothing was committed; the pages fetched so far are checkpointed, and running "
            f"`anchorpath run {site}` again (same options) resumes this run without fetching "
            "them again"
        ) from None
    if resume and not result.resumed:
        console.print("[dim]no unfinished run to resume: ran from the start[/]")
    print_summary(result, console, elapsed=time.monotonic() - started)
    if purge:
        from anchorpath.cli.governance import default_by, print_purge
        from anchorpath.runner.retention.purge import purge_site

        try:
            print_purge(
                purge_site(
                    state_dir=options.state_dir,
                    selectors_dir=options.selectors_dir,
                    site=site,
                    by=default_by(),
                ),
                console,
            )
        except AnchorpathError as exc:
            click.echo(f"Error: purge: {terminal_safe(exc)}", err=True)
            raise SystemExit(max(result.exit_code, 1)) from exc
    raise SystemExit(result.exit_code)


# -- run --all -----------------------------------------------------------------------------


class _AllDisplay:
    """One progress line per site and one for the whole job (``run --all``)."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.total = progress.add_task("[bold]sites", total=None, status="")
        self.rows: dict[str, Any] = {}
        self.finished = 0

    def _row(self, site: str) -> Any:
        if site not in self.rows:
            self.rows[site] = self.progress.add_task(site, total=None, status="waiting")
        return self.rows[site]

    def __call__(self, event: ProgressEvent) -> None:
        match event:
            case SitesPlanned(sites=sites, groups=groups):
                self.progress.update(
                    self.total, total=len(sites), status=f"{groups} origin group(s)"
                )
                for name in sites:
                    self._row(name)
            case RunStarted(site=site, resumed=resumed):
                self.progress.update(self._row(site), status="resuming" if resumed else "crawling")
            case PageRead(site=site, done=done, queued=queued, records=records, errors=errors):
                self.progress.update(
                    self._row(site),
                    status=f"pages {done} · queued {queued} · records {records}"
                    + (f" · errors {errors}" if errors else ""),
                )
            case Phase(site=site, name=name):
                self.progress.update(self._row(site), status=name)
            case SiteDone(site=site, verdict=verdict):
                self.progress.update(self._row(site), status=f"[{_style(verdict)}]{verdict}[/]")
                self.finished += 1
                self.progress.update(self.total, completed=self.finished)
            case Note(message=message):
                self.progress.console.print(f"[yellow]{_safe(message)}[/]")
            case _:
                pass


def print_all_summary(result: RunAllResult, console: Console) -> None:
    """The summary table of ``run --all`` and what to look at next."""
    table = Table(
        title=f"run --all · {len(result.sites)} site(s), {result.groups} origin group(s)",
        title_justify="left",
    )
    for col in ("site", "verdict", "pages", "records", "new", "changed", "withdrawn", "time"):
        table.add_column(col, justify="left" if col in ("site", "verdict") else "right")
    for s in result.sites:
        c = s.counts()
        table.add_row(
            s.site,
            f"[{_style(s.verdict)}]{s.verdict}[/]",
            str(c.pages),
            str(c.records),
            str(c.new),
            str(c.changed),
            str(c.withdrawn),
            f"{s.seconds:.1f}s",
        )
    console.print(table)
    for s in result.sites:
        if s.verdict not in ("ok", "empty-source") and s.reason:
            console.print(f"[bold]{s.site}[/] {s.verdict}: {_short(s.reason, 200)}")
        if s.result is not None and s.result.bundle:
            console.print(
                f"  next: [bold]anchorpath author repair {s.site} --bundle {s.result.bundle}[/]"
            )
    console.print(
        f"[dim]{result.seconds:.1f}s in all · exit {result.exit_code} (the most severe verdict)[/]"
    )


def _run_all_cmd(
    patterns: tuple[str, ...],
    workers: int | None,
    executor_text: str,
    selectors_dir: Path | None,
    state_dir: Path | None,
    full: bool,
    overrides: Mapping[str, Any],
    config_file: Path | None,
    quiet: bool,
) -> None:
    console = output_console()
    try:
        settings: Settings = load_settings(config_file, overrides=overrides)
        spec = parse_executor(executor_text)
        options = RunAllOptions(
            patterns=patterns,
            selectors_dir=selectors_dir or Path(settings.paths.selectors_dir),
            state_dir=state_dir or Path(settings.paths.state_dir),
            full=full,
            workers=workers,
            settings=settings,
        )
        pool = open_executor(spec)
        try:
            if quiet:
                result = run_all(options, executor=pool)
            else:
                with _spinner(console) as progress:
                    result = run_all(options, executor=pool, progress=_AllDisplay(progress))
        finally:
            pool.close()
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    except KeyboardInterrupt:
        raise interrupted(
            "sites that had finished are committed; the others are checkpointed, and the "
            "next `anchorpath run --all` resumes each of them where it stopped"
        ) from None
    print_all_summary(result, console)
    raise SystemExit(result.exit_code)


# -- the demo's three days (called by ``anchorpath demo``) ------------------------------------

#: The contact the demo sends when none is configured (it only crawls its own loopback server).
DEMO_CONTACT = "anchorpath-demo@localhost"

_DAY_STORY = {
    1: "first run: every record is new",
    2: "one day later: new, changed and withdrawn notices (and a trivial 비고 edit: no event)",
    3: "the site's template was redesigned: the drift gate must stop the run",
}


def run_demo(
    console: Console,
    server: Callable[[int], AbstractContextManager[Any]],
    selector_file: Path,
    *,
    state_dir: Path | None = None,
    days: tuple[int, ...] = (1, 2, 3),
    min_delay: float = 0.02,
    check: Callable[[int, int, RunResult], str | None] | None = None,
    stories: dict[int, str] | None = None,
) -> int:
    """Serve the demo site day by day and run the pipeline on it; returns the last exit code.

    ``server(day)`` is a context manager yielding an object with ``base_url`` (the demo
    server); ``check(day_from, day_to, result)`` may return a line comparing the run's events
    with the demo's ground truth (``day_from`` is the last accepted day, 0 before the first).
    Politeness is fast (``min_delay``) and loopback is allowed: the demo server is ours.
    """
    settings = load_settings()
    fast = replace(
        settings.fetch,
        min_delay=min_delay,
        delay_factor=0.0,
        allow_private_networks=True,
        # Only our own loopback server is crawled: no need for a real contact address.
        contact=DEMO_CONTACT
        if settings.fetch.contact == DEFAULT_CONTACT
        else settings.fetch.contact,
    )
    # Everything the demo writes stays in its own state directory (cache included).
    settings = replace(settings, fetch=fast, paths=replace(settings.paths, cache_dir=""))
    own_state = state_dir is None
    state = Path(tempfile.mkdtemp(prefix="anchorpath-demo-")) if state_dir is None else state_dir
    console.print(f"[dim]state directory: {state}[/]")
    code = 0
    previous: int | None = None
    for day in days:
        story = (stories or _DAY_STORY).get(day, "")
        console.rule(f"[bold]Day {day}[/] · {story}")
        with server(day) as srv:
            base_url = str(srv.base_url)
            console.print(
                f"[dim]$ anchorpath run {selector_file} --state {state} --base-url {base_url}[/]"
            )
            options = RunOptions(
                site=str(selector_file),
                selectors_dir=selector_file.parent,
                state_dir=state,
                base_url=base_url,
                settings=settings,
            )
            started = time.monotonic()
            result = execute_run(options, console)
        print_summary(result, console, elapsed=time.monotonic() - started)
        if check is not None:
            line = check(previous or 0, day, result)
            if line:
                console.print(line)
        code = result.exit_code
        if result.verdict == "ok":
            previous = day
    console.rule()
    if own_state:
        console.print(f"[dim]everything the demo wrote is in {state}[/]")
    return code


@click.command("accept")
@click.argument("site")
@click.argument("run_id")
@click.option(
    "--by",
    "by",
    help="Who accepts the run (recorded in the runs table; default: your login name).",
)
@selectors_option
@state_option
@config_option
def accept_cmd(
    site: str,
    run_id: str,
    by: str | None,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
) -> None:
    """Accept RUN_ID, a quarantined drift run of SITE that you reviewed: a false alarm.

    Its quarantined records are committed exactly as an ok run would have committed them
    (new/changed/withdrawn against the current database, one transaction; withdrawn only if
    its crawl was complete), the run's verdict becomes `accepted` (with who and when), and
    its field statistics join the drift gate's baseline, so the same alarm does not repeat.

    Refused (exit 1, one line) when the run does not exist, was not `drift` (a `blocked` run
    never: the site refused us), was already accepted, or is older than a committed run
    (accepting it would rewrite history). A real template change is not a false alarm:
    repair the selector file instead (`anchorpath author repair`).

    \b
    Examples:
      anchorpath accept mfds-dmf 20261130T060002Z-3fa9c1
      anchorpath accept mfds-dmf 20261130T060002Z-3fa9c1 --by kim --state /var/lib/anchorpath
    """
    console = output_console()
    try:
        settings: Settings = load_settings(config_file)
        result = accept_run(
            site,
            run_id,
            selectors_dir=selectors_dir or Path(settings.paths.selectors_dir),
            state_dir=state_dir or Path(settings.paths.state_dir),
            by=by,
        )
    except AnchorpathError as exc:
        raise click.ClickException(terminal_safe(exc)) from exc
    print_summary(result, console)


COMMANDS = [run_cmd, accept_cmd]
