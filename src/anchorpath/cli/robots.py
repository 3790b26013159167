"""``anchorpath robots check``: which robots.txt line decides a URL."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from anchorpath._config import FetchConfig, load_settings
from anchorpath._errors import AnchorpathError
from anchorpath._text import quote_name, terminal_safe
from anchorpath._untrusted import read_capped
from anchorpath.cli.options import config_option
from anchorpath.fetch.robots import Decision, RobotsFile, parse_robots, product_token
from anchorpath.selectors.page_url import looks_binary

__all__ = ["COMMANDS", "robots_group"]


@click.group("robots")
def robots_group() -> None:
    """Inspect robots.txt decisions the way the fetcher makes them.

    \b
    Examples:
      anchorpath robots check --robots robots.txt --user-agent anchorpath https://example.org/a
      anchorpath robots check --fetch --user-agent anchorpath https://example.org/dmf/list.do
    """


def _urls(args: tuple[str, ...]) -> list[str]:
    """URL arguments, plus stdin lines when no URL is given (or ``-`` is)."""
    urls = [u for u in args if u != "-"]
    wants_stdin = not urls or "-" in args
    if wants_stdin and sys.stdin is not None and not sys.stdin.isatty():
        urls += [line.strip() for line in sys.stdin if line.strip()]
    return urls


def _print(decision: Decision, as_json: bool) -> None:
    if as_json:
        click.echo(
            json.dumps(
                {
                    "url": decision.url,
                    "allowed": decision.allowed,
                    "line": decision.line,
                    "rule": decision.rule,
                }
            )
        )
        return
    verdict = "allowed   " if decision.allowed else "disallowed"
    if decision.line is not None:
        why = f"by line {decision.line}: {decision.rule}"
    else:
        why = f"({decision.rule})"
    if decision.group_line is not None:
        group = f"group at line {decision.group_line}, {decision.group}"
    else:
        group = "no group"
    click.echo(f"{verdict}  {decision.url}  {why}  [{group}]")


def _warn(source: str, robots: RobotsFile) -> None:
    for warning in robots.warnings:
        click.echo(f"warning: {source}: {terminal_safe(warning)}", err=True)


def _not_text(body: bytes) -> bool:
    """Bytes no robots.txt holds: a file signature, NUL bytes, or mostly control bytes."""
    head = body[:2048]
    if looks_binary(head):
        return True
    controls = sum(1 for b in head if b < 32 and b not in (9, 10, 13))
    return bool(head) and controls / len(head) > 0.05


@robots_group.command("check")
@click.option(
    "--robots",
    "robots_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    help="Local robots.txt to check against.",
)
@click.option(
    "--fetch",
    "do_fetch",
    is_flag=True,
    help="Fetch each URL's robots.txt politely (same rules and cache as a run).",
)
@click.option(
    "--user-agent",
    "user_agent",
    required=True,
    help="Product token to match (a full User-Agent string is cut to its token).",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per URL.")
@config_option
@click.argument("urls", nargs=-1)
def check(
    robots_file: Path | None,
    do_fetch: bool,
    user_agent: str,
    as_json: bool,
    config_file: Path | None,
    urls: tuple[str, ...],
) -> None:
    """Say for each URL whether robots.txt allows it, and which line decides.

    URLs come from the arguments or, one per line, from stdin. Warnings (unknown directives,
    missing colons, relative Sitemaps, content past 500 KiB, a user agent named in several
    groups) go to stderr. With --json each URL prints {"url", "allowed", "line", "rule"}.

    \b
    Examples:
      anchorpath robots check --robots robots.txt --user-agent Googlebot https://example.com/a
      anchorpath robots check --fetch --user-agent anchorpath --json https://example.com/a
      cat urls.txt | anchorpath robots check --robots robots.txt --user-agent Bingbot
    """
    if (robots_file is None) == (not do_fetch):
        raise click.UsageError("give exactly one of --robots FILE or --fetch")
    token = product_token(user_agent)
    if not token:
        raise click.BadParameter(f"{user_agent!r} has no product token", param_hint="--user-agent")
    targets = _urls(urls)
    if not targets:
        raise click.UsageError("no URLs given (as arguments or on stdin)")
    try:
        settings = load_settings(config_file)
        limit = settings.fetch.robots_max_bytes
        if robots_file is not None:
            try:
                body = read_capped(robots_file, settings.fetch.max_decompressed_bytes)
            except OSError as exc:
                raise click.ClickException(
                    f"{quote_name(robots_file)}: cannot read: {exc.strerror}"
                ) from exc
            if _not_text(body):
                raise click.ClickException(f"{robots_file}: not a robots.txt (binary content)")
            robots = parse_robots(body, max_bytes=limit)
            _warn(str(robots_file), robots)
            for url in targets:
                _print(robots.decide(token, url), as_json)
            return
        _check_fetched(settings.fetch, settings.paths.cache_path(), token, targets, as_json)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc


def _check_fetched(
    config: FetchConfig, cache_dir: Path, token: str, urls: list[str], as_json: bool
) -> None:
    from anchorpath.fetch.polite import PoliteFetcher

    warned: set[int] = set()
    with PoliteFetcher(config, cache_dir=str(cache_dir)) as fetcher:
        for url in urls:
            robots = fetcher.robots_for(url)
            if robots is None:
                _print(Decision(url, True, None, "no robots.txt (404/410)", None, None), as_json)
                continue
            if id(robots) not in warned:
                warned.add(id(robots))
                _warn(f"robots.txt for {url}", robots)
            _print(robots.decide(token, url), as_json)


COMMANDS = [robots_group]
