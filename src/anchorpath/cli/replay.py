"""``anchorpath replay``: re-read a site's archived pages with another selector version."""

from __future__ import annotations

import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from anchorpath._config import Settings, load_settings
from anchorpath._errors import AnchorpathError
from anchorpath.cli.options import (
    config_option,
    executor_option,
    output_console,
    selectors_option,
    state_option,
)
from anchorpath.runner.executor import open_executor, parse_executor
from anchorpath.runner.progress import (
    ProgressEvent,
    ReplayPlanned,
    RunReplayed,
    RunsChecked,
    ShardsRead,
)
from anchorpath.runner.replay.plan import ReplayOptions, parse_time
from anchorpath.runner.replay.report import ReplayReport
from anchorpath.runner.replay.run import replay_site

__all__ = ["COMMANDS", "replay_cmd"]


class _Display:
    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = progress.add_task("reading archived pages", total=None)
        self.pages = 0

    def __call__(self, event: ProgressEvent) -> None:
        match event:
            case ReplayPlanned(runs=runs, shards=shards):
                self.progress.update(self.task, total=shards + runs)
            case ShardsRead(shards=shards, pages=pages):
                self.pages += pages
                self.progress.update(
                    self.task, advance=shards, description=f"reading archived pages ({self.pages})"
                )
            case RunsChecked(runs=runs):
                self.progress.update(self.task, advance=runs, description="validating, measuring")
            case RunReplayed(run_id=run_id):
                self.progress.update(self.task, description=f"gate: run {run_id}")
            case _:
                pass


def print_replay(result: ReplayReport, console: Console, elapsed: float) -> None:
    """One line per replayed run: what the store recorded and what version N gives."""
    table = Table(
        title=f"replay {result.site} with selector version {result.version} "
        f"({len(result.runs)} run(s), into {result.into})",
        title_justify="left",
    )
    for col in ("run", "was", "replayed", "pages", "records", "new", "changed", "withdrawn"):
        table.add_column(col, justify="right" if col in ("pages", "records") else "left")
    table.add_column("same events")
    for r in result.runs:
        n = r.counts()
        table.add_row(
            r.run_id,
            f"{r.original_verdict} (v{r.original_version})",
            r.verdict,
            str(r.pages),
            str(r.records),
            str(n["new"]),
            str(n["changed"]),
            str(n["withdrawn"]),
            "yes" if r.same_events() else "[yellow]no[/]",
        )
    console.print(table)
    for r in result.runs:
        if r.unresolved:
            console.print(
                f"[yellow]{r.run_id}: {len(r.unresolved)} page(s) answered 304 and their body "
                f"was not found in any archive (incomplete)[/]"
            )
        if r.verdict not in ("ok", "empty-source") and r.reason:
            console.print(f"[bold]{r.run_id}[/] {r.verdict}: {r.reason}")
    d = result.final_diff
    console.print(
        f"records after the last replayed run vs the store: {d.same} same, "
        f"{d.different} different, {d.only_replayed} only replayed, "
        f"{d.only_store} only in the store"
    )
    if result.into == "store":
        console.print(f"[bold green]backfilled {result.written} run(s)[/] into {result.database}")
    else:
        console.print(f"scratch database: {result.database}")
    console.print(f"[dim]report: {result.out_dir / 'report.md'} · {elapsed:.1f}s[/]")


@click.command("replay")
@click.argument("site")
@click.option(
    "--version",
    "version",
    type=click.IntRange(min=1),
    help="Selector version to replay with (default: the current one; older ones come from "
    "SELECTORS/.history/SITE/).",
)
@click.option("--since", help="Replay runs started at or after this UTC time (2026-11-30[T06:00]).")
@click.option("--until", help="Replay runs started at or before this UTC time (a date: that day).")
@click.option(
    "--into",
    type=click.Choice(["scratch", "store"]),
    default="scratch",
    show_default=True,
    help="scratch: a separate database and report to review; store: backfill the real "
    "store in one transaction (refused if it would contradict committed runs).",
)
@click.option("--by", "by", help="Who backfills (with --into store; default: your login name).")
@executor_option
@selectors_option
@state_option
@config_option
@click.option("-q", "--quiet", is_flag=True, help="No progress display.")
def replay_cmd(
    site: str,
    version: int | None,
    since: str | None,
    until: str | None,
    into: str,
    by: str | None,
    executor: str,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
    quiet: bool,
) -> None:
    """Re-extract SITE's archived pages with selector version N: no network.

    The runs between --since and --until are replayed in order from their WARC files, with
    validation, the drift gate and new/changed/withdrawn events computed as if they had used
    version N. --into scratch (default) writes a separate database and a report of what would
    change; --into store backfills the real store (runs it had not committed, such as drift
    runs, become `replayed`) in one transaction, after the same checks, and refuses when a
    replayed run fails the gate or a committed run would be contradicted.
    --executor local:N extracts the WARC segments in N worker processes of this machine,
    --executor dask://HOST:PORT on a Dask cluster.

    \b
    Exit codes: 0 every replayed run passes, 1 error or refused, 3 a replayed run is drift.

    \b
    Examples:
      anchorpath replay mfds-dmf --since 2026-11-28
      anchorpath replay mfds-dmf --version 3 --since 2026-11-28 --until 2026-11-30
      anchorpath replay mfds-dmf --since 2026-11-30 --into store
      anchorpath replay mfds-dmf --executor local:2
      anchorpath replay mfds-dmf --executor dask://10.0.0.5:8786
    """
    console = output_console()
    try:
        settings: Settings = load_settings(config_file)
        spec = parse_executor(executor)
        options = ReplayOptions(
            site=site,
            selectors_dir=selectors_dir or Path(settings.paths.selectors_dir),
            state_dir=state_dir or Path(settings.paths.state_dir),
            version=version,
            since=parse_time(since) if since else None,
            until=parse_time(until, end=True) if until else None,
            into=into,
            by=by,
            settings=settings,
        )
        started = time.monotonic()
        pool = open_executor(spec)
        try:
            if quiet:
                result = replay_site(options, executor=pool)
            else:
                with Progress(
                    TextColumn("[bold]{task.description}"),
                    BarColumn(),
                    TimeElapsedColumn(),
                    console=console,
                    transient=True,
                ) as progress:
                    result = replay_site(options, executor=pool, progress=_Display(progress))
        finally:
            pool.close()
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    print_replay(result, console, time.monotonic() - started)
    raise SystemExit(result.exit_code)


COMMANDS = [replay_cmd]
