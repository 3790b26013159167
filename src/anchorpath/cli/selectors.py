"""``anchorpath validate`` and ``anchorpath extract``: selector files and pages, no network."""

from __future__ import annotations

import csv
import io
import json
import sys
import warnings
from pathlib import Path
from typing import Any

import click

from anchorpath._errors import (
    AnchorpathError,
    ExtractionError,
    NoPageTypeError,
    SelectorValidationError,
)
from anchorpath._text import quote_name, terminal_safe
from anchorpath._untrusted import MAX_PAGE_BYTES, read_capped
from anchorpath.cli.options import (
    check_charset,
    check_url,
    output_console,
    selector_file_option,
)
from anchorpath.selectors.evaluate import ExtractionWarning, Record, compile_selectors, extract
from anchorpath.selectors.load import load_selector_file
from anchorpath.selectors.page_url import declared_url, looks_binary
from anchorpath.selectors.policy import policy_warnings


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
def validate(files: tuple[str, ...]) -> None:
    """Check selector files against the schema and compile every XPath.

    Each problem is printed as FILE:/json/pointer: message. Exits 1 if any file has a problem.

    \b
    Examples:
      anchorpath validate selectors/mfds-dmf.json
      anchorpath validate selectors/*.json
    """
    failed = False
    for name in files:
        try:
            sf = load_selector_file(name, check_files=True)
        except SelectorValidationError as exc:
            failed = True
            for line in exc.problems:
                click.echo(terminal_safe(line), err=True)
            continue
        except AnchorpathError as exc:
            failed = True
            click.echo(terminal_safe(str(exc)), err=True)
            continue
        for line in policy_warnings(sf, name):
            click.echo(f"warning: {line}", err=True)
        fields = sum(len(pt.fields) for pt in sf.page_types.values())
        click.echo(
            f"{quote_name(name)}: ok ({sf.site.id} v{sf.version}, {len(sf.page_types)} page types, "
            f"{fields} fields)"
        )
    if failed:
        sys.exit(1)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return str(value)


def _read_page(page: str) -> bytes:
    """A saved page's bytes (within :data:`MAX_PAGE_BYTES`), or a one-line error naming it."""
    try:
        body = read_capped(page, MAX_PAGE_BYTES)
    except OSError as exc:
        raise click.ClickException(f"{quote_name(page)}: cannot read page: {exc.strerror}") from exc
    if not body.strip():
        raise click.ClickException(f"{page}: empty file, not a page")
    if looks_binary(body):
        raise click.ClickException(f"{page}: binary file, not an HTML page")
    return body


def _print_records(rows: list[dict[str, Any]], fmt: str) -> None:
    """The extracted records as JSON lines, CSV or a table."""
    if fmt == "jsonl":
        for row in rows:
            click.echo(json.dumps(row, ensure_ascii=False))
        return
    columns: list[str] = []
    if fmt == "csv":
        for row in rows:
            columns += [k for k in row if k not in columns and k != "_trace"]
        buf = io.StringIO()
        writer = csv.DictWriter(buf, columns, extrasaction="ignore")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: _cell(row.get(k)) for k in columns})
        click.echo(buf.getvalue(), nl=False)
        return
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_lines=False)
    for row in rows:
        columns += [k for k in row if k not in columns and k not in ("_trace", "_url")]
    for col in columns:
        table.add_column(col, overflow="fold")
    for row in rows:
        table.add_row(*[escape(terminal_safe(_cell(row.get(c)))) for c in columns])
    output_console().print(table)


@click.command("extract")
@selector_file_option
@click.option(
    "--url",
    callback=check_url,
    help="URL the pages were fetched from (picks the page type, resolves links). Default: "
    "what each page says (<base href>, <link rel=canonical>, og:url).",
)
@click.option(
    "--charset",
    callback=check_charset,
    help="Charset the server declared, if known (overrides <meta>).",
)
@click.option(
    "--page-type",
    "page_type",
    default=None,
    metavar="NAME",
    help="Extract every page as this page type, whatever its URL (default: the page type "
    "whose match the URL fits).",
)
@click.option("--trace", is_flag=True, help="Add the XPath and node path behind every value.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "csv", "table"]),
    default="jsonl",
    show_default=True,
)
@click.argument("pages", nargs=-1, required=True, type=click.Path(dir_okay=False))
def extract_cmd(
    selector_path: Path,
    url: str | None,
    charset: str | None,
    page_type: str | None,
    trace: bool,
    fmt: str,
    pages: tuple[str, ...],
) -> None:
    """Apply a selector file to saved pages and print the records.

    JSON Lines by default: one record per line with _url and _page_type; required fields
    without a value are listed in _missing. Nothing is fetched. Without --url, each page's URL
    is the one it declares (<base href>, <link rel=canonical>, og:url). Exits 1 when a page
    is empty or not HTML, declares no URL, or matches no page type of the selector file (each
    such page is named with the page types' URL patterns; --page-type NAME forces one).

    \b
    Examples:
      anchorpath extract -s selectors/mfds-dmf.json --url URL_OF_PAGE page.html
      anchorpath extract -s selectors/mfds-dmf.json --page-type detail saved/*.html
      anchorpath extract -s selectors/mfds-dmf.json --format table list.html
      anchorpath extract -s selectors/mfds-dmf.json --charset euc-kr saved/*.html
    """
    try:
        sf = load_selector_file(selector_path)
        if page_type is not None:
            compile_selectors(sf).page_type(page_type)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    records: list[Record] = []
    unmatched: list[str] = []
    for page in pages:
        body = _read_page(page)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ExtractionWarning)
            try:
                page_url = url or _declared(page, body, charset)
                found = extract(
                    sf, body, page_url, http_charset=charset, trace=trace, page_type=page_type
                )
            except NoPageTypeError:
                unmatched.append(page)
                click.echo(
                    terminal_safe(
                        f"{page}: no page type of {selector_path} matches {page_url} (page "
                        f"types: {compile_selectors(sf).describe()}); give the page's URL "
                        "with --url or force a page type with --page-type NAME"
                    ),
                    err=True,
                )
                found = []
            except AnchorpathError as exc:
                raise click.ClickException(terminal_safe(f"{page}: {exc}")) from exc
        for w in caught:
            click.echo(f"{page}: warning: {w.message}", err=True)
        records += found
    _print_records([r.to_dict() for r in records], fmt)
    if any(r.flagged for r in records):
        flagged = sum(1 for r in records if r.flagged)
        click.echo(
            f"{flagged} of {len(records)} records flagged (missing required fields or bad values)",
            err=True,
        )
    if unmatched:
        sys.exit(1)


def _declared(page: str, body: bytes, charset: str | None) -> str:
    found = declared_url(body, charset)
    if found is None:
        raise ExtractionError(
            "the page declares no URL (no <base href>, <link rel=canonical> or og:url): "
            "give the URL it was fetched from with --url"
        )
    return found.url


COMMANDS = [validate, extract_cmd]
