"""``anchorpath resume``: lift a site's stop after a person reviewed why it stopped;
``anchorpath forget``: a deletion request for some records' keys; ``anchorpath purge``: apply
the site's retention period."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from anchorpath._config import Settings, load_settings
from anchorpath._errors import AnchorpathError
from anchorpath._text import terminal_safe
from anchorpath.cli.options import config_option, output_console, selectors_option, state_option
from anchorpath.runner.policy.site import resume_site
from anchorpath.runner.run_types import now
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.selectors.load import find_selector_file, load_selector_file

if TYPE_CHECKING:
    from rich.console import Console

    from anchorpath.runner.retention.purge import PurgeResult

__all__ = ["COMMANDS", "forget_cmd", "print_purge", "purge_cmd", "resume_cmd"]


def _site_id(site: str, selectors_dir: Path) -> str:
    """The site id of SITE (an id, or a selector file path)."""
    if site.endswith(".json") or "/" in site:
        return load_selector_file(find_selector_file(site, selectors_dir)).site.id
    return site


@click.command("resume")
@click.argument("site")
@click.option("--by", "by", required=True, help="Who lifts the stop (recorded).")
@click.option("--reason", required=True, help="Why collecting may go on (recorded).")
@selectors_option
@state_option
@config_option
def resume_cmd(
    site: str,
    by: str,
    reason: str,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
) -> None:
    """Lift the stop of SITE so that `anchorpath run` collects it again.

    A run ends `stopped` (exit 5) when the rules of collection changed or the site refused
    for good: robots.txt now disallows URLs the site needs (the report shows the diff), the
    terms page changed, a start URL answered 401/403, 429s kept coming past Retry-After, a
    login wall or CAPTCHA came before any page, or robots.txt stayed unreachable past RFC
    9309's 30 days. Until a person lifts the stop, `run` and `run --all` refuse the site
    (exit 5). Who, when and why are recorded in the `stops` table; the next run compares
    robots.txt and the terms with what the stopped run saw.

    Exit status: 0 lifted, 1 the site is not stopped (or another error).

    \b
    Examples:
      anchorpath resume mfds-dmf --by kim --reason "robots.txt change reviewed with the owner"
      anchorpath resume mfds-dmf --by kim --reason "terms re-read" --state /var/lib/anchorpath
    """
    console = output_console()
    try:
        settings: Settings = load_settings(config_file)
        sid = _site_id(site, selectors_dir or Path(settings.paths.selectors_dir))
        state = state_dir or Path(settings.paths.state_dir)
        with Store(state / DB_NAME) as store:
            stop = resume_site(store, sid, by=by, reason=reason, at=now())
    except AnchorpathError as exc:
        raise click.ClickException(terminal_safe(exc)) from exc
    console.print(
        f"[bold]{terminal_safe(sid)}[/] resumed by {terminal_safe(by)}: the stop of "
        f"{stop.at} ({terminal_safe(stop.reason)}) is lifted; the next run collects again"
    )


@click.command("forget")
@click.argument("site")
@click.option(
    "--key",
    "keys",
    multiple=True,
    required=True,
    metavar="KEY",
    help="A record key to forget (repeat for several), as `anchorpath records` shows it.",
)
@click.option("--by", "by", required=True, help="Who asked or decided (recorded).")
@click.option("--reason", required=True, help="Why (recorded): the request, its reference.")
@selectors_option
@state_option
@config_option
def forget_cmd(
    site: str,
    keys: tuple[str, ...],
    by: str,
    reason: str,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
) -> None:
    """Forget the records of SITE with these keys, everywhere: a deletion request.

    Removes every version and event of the records from the state database (then compacts
    it, so no deleted byte stays in the file); the pages that carried their values from the
    WARC archives (each file rewritten without those responses, a stub keeping the payload
    digest and a deletion note, read back before it replaces the old one); the values from
    run reports (JSON, Markdown, HTML), quarantines, alert bundles, checkpoints, replay
    folders, the fetch cache and the LLM answer cache, golden fixtures (fixture pages that
    hold them are removed with their entries) and the selector file's examples. Values the
    records share with other records (a date, a category) stay. One row is appended to the
    `deletions` table: who, when, why, a keyed hash of each key (never the key), counts and
    the files rewritten. A forgotten key is never stored again, by `run` or
    `replay --into store`.

    Exit status: 0 done, 1 an unknown key, a site being run (lock held) or another error.

    \b
    Examples:
      anchorpath forget mfds-dmf --key '수1211-1-ND' --by kim --reason "request #42 of 2026-12-01"
      anchorpath forget shop --key 9780316125581 --key 9780316125582 --by kim --reason "DSR-7"
    """
    from anchorpath.runner.retention.forget import forget_keys

    console = output_console()
    try:
        settings: Settings = load_settings(config_file)
        state = state_dir or Path(settings.paths.state_dir)
        result = forget_keys(
            state_dir=state,
            selectors_dir=selectors_dir or Path(settings.paths.selectors_dir),
            cache_dir=settings.paths.cache_path(state),
            # where authoring keeps LLM answers (authoring.llm.author)
            llm_cache_dir=Path(settings.paths.cache_dir) / "llm",
            site=site,
            keys=keys,
            by=by,
            reason=reason,
        )
    except AnchorpathError as exc:
        raise click.ClickException(terminal_safe(exc)) from exc
    counts = ", ".join(f"{k} {v}" for k, v in result.counts.items())
    console.print(f"[bold]{terminal_safe(result.site)}[/]: forgotten ({counts})")
    for line in result.files:
        console.print(f"  [dim]rewritten or removed: {terminal_safe(line)}[/]")
    console.print("[dim]audit: one row in the deletions table (keyed hashes, never the keys)[/]")


def default_by() -> str:
    """Who a purge is recorded as when ``--by`` is not given: the login name."""
    import getpass

    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


def print_purge(result: PurgeResult, console: Console) -> None:
    """One line per purge: what went and the window kept."""
    counts = ", ".join(f"{k} {v}" for k, v in result.counts.items())
    console.print(
        f"[bold]{terminal_safe(result.site)}[/]: purged before {result.cutoff} ({counts}); "
        "records --as-of an earlier time now says it is outside retention"
    )


@click.command("purge")
@click.argument("site")
@click.option("--by", "by", default=None, help="Who purges (recorded; default: login name).")
@click.option("--reason", default=None, help="Why (recorded; default: the retention period).")
@selectors_option
@state_option
@config_option
def purge_cmd(
    site: str,
    by: str | None,
    reason: str | None,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
) -> None:
    """Apply SITE's retention period (policy.retention_days) to what was collected.

    Record versions that stopped being valid before the window, events recorded before it,
    and runs that started before it (their folders: WARCs, reports, quarantines, bundles;
    their rows) are removed, and the database compacted; one row is appended to the
    `deletions` table (who, when, why, counts, folders, the window's start). Current records
    stay however old. `records --as-of` a time before the window then says it is outside
    retention; at or after it, the answer is what it was. `run SITE --purge` purges after
    the run.

    Exit status: 0 done, 1 no retention_days in the selector file, a site being run (lock
    held), or another error.

    \b
    Examples:
      anchorpath purge mfds-dmf
      anchorpath purge mfds-dmf --by kim --reason "yearly review" --state /var/lib/anchorpath
    """
    from anchorpath.runner.retention.purge import purge_site

    console = output_console()
    try:
        settings: Settings = load_settings(config_file)
        result = purge_site(
            state_dir=state_dir or Path(settings.paths.state_dir),
            selectors_dir=selectors_dir or Path(settings.paths.selectors_dir),
            site=site,
            by=by or default_by(),
            reason=reason,
        )
    except AnchorpathError as exc:
        raise click.ClickException(terminal_safe(exc)) from exc
    print_purge(result, console)


COMMANDS = [resume_cmd, forget_cmd, purge_cmd]
