"""``anchorpath records`` and ``anchorpath events``: the collected data out of the state
database, as CSV, JSON Lines or JSON, streamed."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

import click

from anchorpath._config import load_settings
from anchorpath._errors import AnchorpathError
from anchorpath.cli.options import config_option, selectors_option, state_option
from anchorpath.runner.store.database import DB_NAME
from anchorpath.runner.store.export import (
    EVENT_COLUMNS,
    EXPORT_FORMATS,
    ExportFormat,
    iter_events,
    iter_records,
    parse_time,
    record_columns,
    rekeyed_count,
    write_rows,
)
from anchorpath.selectors.load import find_selector_file, load_selector_file

__all__ = ["COMMANDS", "events_cmd", "records_cmd"]

format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(EXPORT_FORMATS),
    default="jsonl",
    show_default=True,
    help="csv (one header line), jsonl (one object per line) or json (one array).",
)
out_option = click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (replaced only once the export is complete); default stdout.",
)


@dataclass(frozen=True)
class _Site:
    """SITE (an id or a selector file path) as its selector file says: its id, its emitted
    fields in the file's order and its key fields (both empty when no file is at hand)."""

    id: str
    fields: list[str]
    key: list[str]


def _site_id(site: str, selectors_dir: Path) -> _Site:
    try:
        sf = load_selector_file(find_selector_file(site, selectors_dir))
    except AnchorpathError:
        if site.endswith(".json") or os.sep in site:
            raise
        return _Site(site, [], [])
    fields: list[str] = []
    for pt in sf.page_types.values():
        if pt.emit:
            fields += [f for f in pt.fields if f not in fields]
    return _Site(sf.site.id, fields, list(sf.key))


@contextlib.contextmanager
def _output(out_path: Path | None) -> Iterator[TextIO]:
    if out_path is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    tmp = out_path.with_name(f".{out_path.name}.part")
    try:
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            yield fh
        os.replace(tmp, out_path)
    except OSError as exc:
        raise click.ClickException(f"{out_path}: cannot write: {exc.strerror}") from exc
    finally:
        tmp.unlink(missing_ok=True)


def _paths(
    site: str, selectors_dir: Path | None, state_dir: Path | None, config_file: Path | None
) -> tuple[_Site, Path]:
    settings = load_settings(config_file)
    found = _site_id(site, selectors_dir or Path(settings.paths.selectors_dir))
    return found, (state_dir or Path(settings.paths.state_dir)) / DB_NAME


def _time(value: str | None, flag: str) -> str | None:
    if value is None:
        return None
    try:
        return parse_time(value, flag)
    except AnchorpathError as exc:
        raise click.BadParameter(str(exc), param_hint=flag) from exc


def _finish(n: int, what: str, out_path: Path | None) -> None:
    if out_path is not None:
        click.echo(f"{n} {what} written to {out_path}", err=True)


@click.command("records")
@click.argument("site")
@click.option("--as-of", "as_of", help="The records as they stood at this time (ISO 8601).")
@format_option
@out_option
@selectors_option
@state_option
@config_option
def records_cmd(
    site: str,
    as_of: str | None,
    fmt: ExportFormat,
    out_path: Path | None,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
) -> None:
    """Print the records of SITE from the state database (current ones by default).

    Each record carries _key, _valid_from, _valid_to (empty while current) and _run_id (the
    run that recorded this version) besides its fields. --as-of shows the records as they
    stood at that time (withdrawn ones included until their withdrawal). A time without an
    offset is UTC; a bare date is 00:00 UTC of that day. Rows are streamed, not loaded.

    \b
    Examples:
      anchorpath records mfds-dmf --format csv --out dmf.csv
      anchorpath records mfds-dmf --as-of 2026-11-30T06:00:00Z --format json
      anchorpath records mfds-dmf --state /var/lib/anchorpath | jq .reg_no
    """
    when = _time(as_of, "--as-of")
    try:
        found, db = _paths(site, selectors_dir, state_dir, config_file)
        sid = found.id
        stale = rekeyed_count(db, sid, found.key) if found.key and when is None else 0
        if stale:
            click.echo(
                f"warning: {stale} current record(s) are stored under another key than "
                f"{found.key} (the selector file's key changed): the first complete run of "
                "the new version retires them; until then they are listed beside the "
                "records under the new key",
                err=True,
            )
        columns: list[str] = []
        if fmt == "csv":
            stored = record_columns(db, sid, when)
            columns = ["_key", *[f for f in found.fields if f in stored]]
            columns += [f for f in stored if f not in columns]
            columns += ["_valid_from", "_valid_to", "_run_id"]
        rows = iter_records(db, sid, when)
        with _output(out_path) as out:
            n = write_rows(rows, out, fmt, columns)
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    _finish(n, "records", out_path)


@click.command("events")
@click.argument("site")
@click.option("--since", help="Only events recorded at or after this time (ISO 8601).")
@format_option
@out_option
@selectors_option
@state_option
@config_option
def events_cmd(
    site: str,
    since: str | None,
    fmt: ExportFormat,
    out_path: Path | None,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
) -> None:
    """Print the new / changed / withdrawn events of SITE, oldest first.

    Each event has at, run_id, key, kind and fields (for changed: every changed field with
    its old and new value; JSON text in CSV). A time without an offset is UTC; a bare date
    is 00:00 UTC of that day.

    \b
    Examples:
      anchorpath events mfds-dmf --since 2026-11-30
      anchorpath events mfds-dmf --since 2026-11-30T06:00:00+09:00 --format csv --out ev.csv
    """
    when = _time(since, "--since")
    try:
        found, db = _paths(site, selectors_dir, state_dir, config_file)
        sid = found.id
        rows = iter_events(db, sid, when)
        with _output(out_path) as out:
            n = write_rows(rows, out, fmt, list(EVENT_COLUMNS))
    except AnchorpathError as exc:
        raise click.ClickException(str(exc)) from exc
    _finish(n, "events", out_path)


COMMANDS = [records_cmd, events_cmd]
