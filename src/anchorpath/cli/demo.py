"""``anchorpath demo``: the bundled demo site (a Korean DMF notice board on 127.0.0.1)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from anchorpath.demo.data import TEMPLATE_CLASSIC, TEMPLATE_RENEWAL, day_date, template_for_day
from anchorpath.demo.server import MODES, DemoServer

if TYPE_CHECKING:  # rich and the runner are imported when the demo runs, not for --help
    from rich.console import Console

    from anchorpath.runner.run_types import RunResult

__all__ = ["COMMANDS", "demo_group"]


@click.group("demo", invoke_without_command=True)
@click.pass_context
def demo_group(ctx: click.Context) -> None:
    """Serve the bundled demo site and collect it.

    Without a subcommand: start the demo site and run the daily pipeline on it: day 1 (every
    record new), day 2 (new, changed, withdrawn), a morning when robots.txt disallows
    everything (stopped, exit 5, then `anchorpath resume`), day 3 (template redesign: drift,
    alert bundle), then repair the selector file from the bundle and run day 3 again.

    \b
    Examples:
      anchorpath demo
      anchorpath demo serve --day 2
      anchorpath demo serve --day 3 --port 8765
    """
    if ctx.invoked_subcommand is not None:
        return
    # The pipeline demo: days 1 and 2 (events), then day 3 (template change: drift + bundle).
    import tempfile

    from rich.console import Console

    from anchorpath._errors import AnchorpathError
    from anchorpath.cli.run import run_demo
    from anchorpath.demo import (
        SELECTOR_FILE_NAME,
        Events,
        expected_events,
        records_for_day,
        selector_text,
    )
    from anchorpath.demo.golden import copy_packaged_fixtures

    work = Path(tempfile.mkdtemp(prefix="anchorpath-demo-"))
    selector = work / "selectors" / SELECTOR_FILE_NAME
    selector.parent.mkdir(parents=True)
    selector.write_text(selector_text(), encoding="utf-8")
    try:
        # The golden fixtures the selector file names (relative paths): they seed the drift
        # gate's baseline, so day 1 is checked against known-good records, not accepted blindly.
        copy_packaged_fixtures(selector.parent)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    verdicts: dict[int, str] = {}
    bundles: dict[int, Path | None] = {}

    def check(day_from: int, day_to: int, result: RunResult) -> str | None:
        verdicts[day_to] = result.verdict
        bundles[day_to] = result.bundle
        if result.verdict != "ok":
            return None
        if day_from == 0:  # first run: every listed record is new
            truth = Events(new=tuple(r.reg_no for r in records_for_day(day_to)))
        else:
            truth = expected_events(day_from, day_to)
        got = (
            {e.key for e in result.events if e.kind == "new"},
            {e.key: set(e.fields) for e in result.events if e.kind == "changed"},
            {e.key for e in result.events if e.kind == "withdrawn"},
        )
        want = (set(truth.new), {k: set(v) for k, v in truth.changed.items()}, set(truth.withdrawn))
        if got == want:
            trivial = (
                f" (trivial 비고 edits ignored: {', '.join(truth.trivial)})"
                if truth.trivial
                else ""
            )
            return f"[green]✓ exactly the demo's expected events{trivial}[/]"
        return "[red]✗ events differ from the demo's ground truth[/]"

    def server(day: int) -> DemoServer:
        return DemoServer(day=day)

    console = Console(soft_wrap=not sys.stdout.isatty())  # cron/pipes: no 80-column wraps
    state = work / "state"
    try:
        run_demo(console, server, selector, state_dir=state, days=(1, 2), check=check)
        resumed = _stopped_day(console, selector, state)
        run_demo(console, server, selector, state_dir=state, days=(3,), check=check)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    repaired = False
    drift_bundle = bundles.get(3)
    if verdicts.get(3) == "drift" and drift_bundle:
        repaired = _repair_and_rerun(console, server, selector, work, Path(drift_bundle))
    console.print(f"[dim]demo files: {work}[/]")
    ok = verdicts.get(1) == "ok" and verdicts.get(2) == "ok" and verdicts.get(3) == "drift"
    ctx.exit(0 if ok and resumed and repaired else 1)


def _stopped_day(console: Console, selector: Path, state: Path) -> bool:
    """The demo's stopped day: the site's robots.txt now disallows everything, so the run
    ends ``stopped`` (exit 5) with the robots.txt diff; a person reviews it and lifts the
    stop with ``anchorpath resume`` (the site restored its robots.txt the next day)."""
    from anchorpath.cli.run import run_demo
    from anchorpath.runner.policy.site import resume_site
    from anchorpath.runner.run_types import now
    from anchorpath.runner.store.database import Store

    outcome: dict[str, RunResult] = {}

    def check(day_from: int, day_to: int, run: RunResult) -> str | None:
        outcome["run"] = run
        if run.verdict == "stopped":
            return "[green]✓ stopped: the store is untouched, later runs refused until resume[/]"
        return f"[red]✗ expected stopped, got {run.verdict}[/]"

    run_demo(
        console,
        lambda day: DemoServer(day=day, mode="robots-deny"),
        selector,
        state_dir=state,
        days=(2,),
        check=check,
        stories={2: "the next morning the site's robots.txt disallows everything"},
    )
    run = outcome.get("run")
    if run is None or run.verdict != "stopped":
        return False
    reason = "the site restored its robots.txt (checked with its owner)"
    console.print(f'[dim]$ anchorpath resume mfds-dmf --by demo --reason "{reason}"[/]')
    with Store.in_state_dir(state) as store:
        resume_site(store, "mfds-dmf", by="demo", reason=reason, at=now())
    console.print("[green]✓ resumed by demo: the next run collects again[/]")
    return True


def _repair_and_rerun(
    console: Console,
    server: Callable[[int], DemoServer],
    selector: Path,
    work: Path,
    bundle: Path,
) -> bool:
    """The demo's last act: repair from the day-3 bundle, then run day 3 again."""
    from anchorpath._errors import AnchorpathError
    from anchorpath.authoring.repair.pipeline import repair_from_bundle
    from anchorpath.authoring.repair.result import render_diff
    from anchorpath.cli.run import run_demo

    console.rule("[bold]Repair[/] · re-author the broken fields from the alert bundle")
    if (bundle / "prompt.md").is_file():
        console.print(
            f"[dim]re-authoring prompt (to read, or paste into any model): "
            f"{bundle / 'prompt.md'}[/]"
        )
    console.print(f"[dim]$ anchorpath author repair mfds-dmf --bundle {bundle} --yes[/]")
    try:
        result = repair_from_bundle(bundle, selectors_dir=selector.parent)
    except AnchorpathError as exc:
        console.print(f"[red]repair failed: {exc}[/]")
        return False
    for line in render_diff(result):
        console.print(line, markup=False, highlight=False)
    if not result.adopted or result.saved is None:
        console.print(f"[red]repair not adopted: {', '.join(result.unreproduced)}[/]")
        return False
    console.print(
        f"[green]✓ adopted: the repaired file reproduces the last good records; saved as "
        f"version {result.saved.version} (version {result.old.version} archived)[/]"
    )
    console.print(
        f"[dim]review it: anchorpath diff mfds-dmf@{result.old.version} "
        f"mfds-dmf@{result.saved.version} --selectors {selector.parent}[/]"
    )
    outcome: dict[str, RunResult] = {}

    def check(day_from: int, day_to: int, run: RunResult) -> str | None:
        outcome["run"] = run
        if run.verdict == "ok" and not run.events:
            return "[green]✓ day 3 passes with the repaired selectors, and nothing changed[/]"
        return f"[red]✗ day 3 after repair: {run.verdict}, {len(run.events)} events[/]"

    try:
        run_demo(
            console,
            server,
            selector,
            state_dir=work / "state",
            days=(3,),
            check=check,
            stories={3: "again, with the repaired selector file"},
        )
    except AnchorpathError as exc:
        console.print(f"[red]{exc}[/]")
        return False
    run = outcome.get("run")
    return bool(run is not None and run.verdict == "ok" and not run.events)


@demo_group.command("serve")
@click.option(
    "--day",
    type=click.IntRange(min=1, max=400),
    default=1,
    show_default=True,
    help="Which day's data to serve (3 = the template-change day).",
)
@click.option(
    "--port",
    type=click.IntRange(min=0, max=65535),
    default=8765,
    show_default=True,
    help="Port on 127.0.0.1 (0 = any free port).",
)
@click.option(
    "--mode",
    type=click.Choice(MODES),
    default="normal",
    show_default=True,
    help="normal, refuse (403), login (login wall) or robots-deny (robots.txt forbids all).",
)
@click.option(
    "--template",
    type=click.Choice([TEMPLATE_CLASSIC, TEMPLATE_RENEWAL]),
    default=None,
    help="Force one template on every day (default: renewal on day 3, classic otherwise).",
)
def serve(day: int, port: int, mode: str, template: str | None) -> None:
    """Serve the demo DMF notice board on 127.0.0.1 until Ctrl-C.

    Day 1 lists 64 records; day 2 adds 3, changes 2 (one only trivially) and withdraws 2;
    day 3 shows the same data in a redesigned template; later days keep evolving.

    \b
    Examples:
      anchorpath demo serve
      anchorpath demo serve --day 3 --port 0
      anchorpath demo serve --mode login
    """
    server = DemoServer(day=day, port=port, mode=mode, template=template)
    try:
        server.start()
    except OSError as exc:
        raise click.ClickException(f"cannot listen on 127.0.0.1:{port}: {exc}") from exc
    shown = template or template_for_day(day)
    click.echo(f"Demo site (day {day}, {day_date(day)}, {shown} template, mode {mode}):")
    click.echo(f"  {server.base_url}/dmf/list.do?page=1")
    click.echo("Press Ctrl-C to stop.")
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        click.echo("Stopped.")
    finally:
        server.stop()


COMMANDS = [demo_group]
