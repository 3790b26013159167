"""Option decorators and checks shared by several commands, so each flag reads the same
everywhere and a bad value is a usage error (exit 2) before anything runs."""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import click
from rich.console import Console

from anchorpath.selectors.decode import normalize_charset
from anchorpath.selectors.page_url import is_http_url

_WIDE = 4096  # "no wrapping" for tables too: columns take their natural width

selectors_option = click.option(
    "--selectors",
    "selectors_dir",
    type=click.Path(file_okay=False, path_type=Path),
    metavar="DIR",
    help="Directory of selector files (default: paths.selectors_dir, 'selectors').",
)
selector_file_option = click.option(
    "-s",
    "--selector-file",
    "selector_path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    metavar="FILE",
    help="The selector file to apply.",
)
state_option = click.option(
    "--state",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="State directory: database, WARCs, reports (default: paths.state_dir).",
)
config_option = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (TOML); default ANCHORPATH_CONFIG or ./anchorpath.toml.",
)
executor_option = click.option(
    "--executor",
    "executor",
    default="local",
    show_default=True,
    help="Where the work runs: 'local' (threads of this process), 'local:N' (N worker "
    "processes of this machine) or 'dask://HOST:PORT' (a Dask scheduler; workers need the "
    "package and the state directory on a shared filesystem).",
)


#: The exit status of a command stopped by Ctrl-C (128 + SIGINT, as shells report it).
INTERRUPTED = 130


def interrupted(message: str) -> click.exceptions.Exit:
    """What a command raises on Ctrl-C: ``message`` (what became of the work, how to go on) on
    stderr, no traceback, exit :data:`INTERRUPTED`."""
    click.echo(f"\ninterrupted: {message}", err=True)
    return click.exceptions.Exit(INTERRUPTED)


def output_console() -> Console:
    """The console a command prints its results on (stdout). When stdout is not a terminal
    (cron mail, a pipe, a log file) nothing is wrapped at 80 columns, so report paths and the
    ``anchorpath author repair ... --bundle PATH`` line stay whole, and no colour codes are
    written."""
    if sys.stdout.isatty():
        return Console()
    return Console(soft_wrap=True, width=_WIDE)


# -- checks (click callbacks) ------------------------------------------------------------


def origin(url: str) -> str:
    """``scheme://host[:port]`` of ``url``, lower-cased."""
    p = urlsplit(url)
    return f"{p.scheme.lower()}://{p.netloc.lower()}"


def _hint(value: str) -> str:
    return f" (did you mean http://{value}?)" if "://" not in value and value.strip() else ""


def check_urls(
    ctx: click.Context, param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """Every value an absolute http(s) URL with a host."""
    for url in value:
        if not is_http_url(url):
            raise click.BadParameter(
                f"{url!r} is not an absolute http(s) URL{_hint(url)}", ctx=ctx, param=param
            )
        if "@" in urlsplit(url).netloc:
            raise click.BadParameter(
                f"a URL of {urlsplit(url).hostname} carries credentials (user:password@): "
                "anchorpath never sends credentials",
                ctx=ctx,
                param=param,
            )
    return value


def check_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An absolute http(s) URL with a host, or nothing."""
    if value is not None:
        check_urls(ctx, param, (value,))
    return value


def check_base_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An http(s) origin: scheme, host, optional port; a path would be ignored, so refuse it."""
    if value is None:
        return None
    if not is_http_url(value):
        raise click.BadParameter(
            f"{value!r} is not an http(s) origin such as http://127.0.0.1:8765{_hint(value)}",
            ctx=ctx,
            param=param,
        )
    p = urlsplit(value)
    if "@" in p.netloc:
        raise click.BadParameter(
            f"the base URL of {p.hostname} carries credentials (user:password@): anchorpath "
            "never sends credentials",
            ctx=ctx,
            param=param,
        )
    if p.path not in ("", "/") or p.query or p.fragment:
        bare = urlunsplit((p.scheme, p.netloc, "", "", ""))
        raise click.BadParameter(
            f"{value!r} has a path: only its scheme, host and port replace the start URLs' "
            f"origin and the path would be ignored; give {bare}",
            ctx=ctx,
            param=param,
        )
    return urlunsplit((p.scheme, p.netloc, "", "", ""))


def check_charset(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A charset label Python can decode (WHATWG aliases included)."""
    if value is not None and normalize_charset(value) is None:
        raise click.BadParameter(f"unknown charset {value!r}", ctx=ctx, param=param)
    return value


def urls_for_base(urls: tuple[str, ...], site_origin: str, base_url: str) -> tuple[str, ...]:
    """``--url`` values with ``--base-url``: a URL on the selector file's origin is moved to
    the base URL's origin (as the start URLs are); one on the base origin stays; any other
    origin is a usage error, since the run would leave the copy it was pointed at."""
    base = origin(base_url)
    out = []
    for url in urls:
        if origin(url) == base:
            out.append(url)
        elif origin(url) == origin(site_origin):
            p = urlsplit(url)
            b = urlsplit(base_url)
            out.append(urlunsplit((b.scheme, b.netloc, p.path or "/", p.query, "")))
        else:
            raise click.UsageError(
                f"--url {url!r} is on {origin(url)}, neither the site's origin "
                f"({origin(site_origin)}) nor --base-url ({base})"
            )
    return tuple(out)
