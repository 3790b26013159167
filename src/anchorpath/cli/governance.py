"""``anchorpath resume``: lift a site's stop after a person reviewed why it stopped."""

from __future__ import annotations

from pathlib import Path

import click

from anchorpath._config import Settings, load_settings
from anchorpath._errors import AnchorpathError
from anchorpath._text import terminal_safe
from anchorpath.cli.options import config_option, output_console, selectors_option, state_option
from anchorpath.runner.policy.site import resume_site
from anchorpath.runner.run_types import now
from anchorpath.runner.store.database import DB_NAME, Store
from anchorpath.selectors.load import find_selector_file, load_selector_file

__all__ = ["COMMANDS", "resume_cmd"]


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


COMMANDS = [resume_cmd]
