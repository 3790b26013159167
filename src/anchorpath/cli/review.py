"""``anchorpath diff`` and ``anchorpath check``: selector changes reviewed like code."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from anchorpath._errors import AnchorpathError
from anchorpath._text import quote_name, terminal_safe
from anchorpath.cli.options import config_option, selectors_option

__all__ = ["COMMANDS", "check_cmd", "diff_cmd"]


def _error(message: str) -> NoReturn:
    """One line on stderr, exit 2 (like diff(1): 0 same, 1 different, 2 trouble)."""
    click.echo(f"Error: {terminal_safe(message)}", err=True)
    sys.exit(2)


def _say(line: str) -> None:
    """One line of ``check``'s text output: file names, page types and values come from the
    files checked (a pull request's), so nothing reaches the terminal raw."""
    click.echo(terminal_safe(line))


def _dirs(
    selectors_dir: Path | None, state_dir: Path | None, config_file: Path | None
) -> tuple[Path, Path | None]:
    from anchorpath._config import load_settings

    if selectors_dir is not None:
        return selectors_dir, state_dir
    try:
        settings = load_settings(config_file)
    except AnchorpathError as exc:
        _error(str(exc))
    return Path(settings.paths.selectors_dir), state_dir


@click.command("diff")
@click.argument("versions", nargs=-1, metavar="OLD NEW | [PATH...]")
@click.option(
    "--git",
    "git_ref",
    metavar="REF",
    help="Compare every selector file that differs between REF and the working tree "
    "(under PATH..., default: the selectors directory).",
)
@selectors_option
@click.option(
    "--state",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also replay the latest run's archived pages (WARC) from this state directory.",
)
@config_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "md", "json"]),
    default="text",
    show_default=True,
    help="text for a terminal, md for a pull-request comment, json for tools.",
)
@click.option(
    "--max-chars",
    type=click.IntRange(min=1000),
    default=60_000,
    show_default=True,
    help="Cap of the Markdown output (GitHub comments hold at most 65,536 characters).",
)
def diff_cmd(
    versions: tuple[str, ...],
    git_ref: str | None,
    selectors_dir: Path | None,
    state_dir: Path | None,
    config_file: Path | None,
    fmt: str,
    max_chars: int,
) -> None:
    """Show what a selector change does: settings by meaning, and values replayed.

    OLD and NEW are selector files, sites (their current file in the selectors directory) or
    archived versions as SITE@N (from selectors/.history/SITE/vN.json). With --git REF,
    every selector file that differs between REF and the working tree is compared.

    Per page type and field: XPath, anchor, type, normalisation, fallbacks, robustness,
    required and key changes, and the crawl settings (start URLs, allow/deny, pagination,
    caps). Both versions then extract the golden fixtures (and, with --state, the latest
    run's archived pages): per field the values that changed, appeared or disappeared, with
    examples and counts, and the record count per page type.

    Exit status: 0 no difference in what is collected, 1 a difference, 2 an error.

    \b
    Examples:
      anchorpath diff mfds-dmf@1 mfds-dmf@2
      anchorpath diff old.json selectors/mfds-dmf.json --state .anchorpath/state
      anchorpath diff --git origin/main --format md > comment.md
      anchorpath diff --git HEAD selectors/mfds-dmf.json --format json
    """
    from rich.console import Console

    from anchorpath.review.diff import diff_pairs
    from anchorpath.review.model import DiffReport
    from anchorpath.review.render import render_json, render_markdown, render_text
    from anchorpath.review.sources import git_versions, load_version

    sel_dir, state = _dirs(selectors_dir, state_dir, config_file)
    if state is not None and not state.is_dir():
        _error(f"{state}: no such state directory")
    try:
        if git_ref is not None:
            paths = [Path(v) for v in versions] or [sel_dir]
            for p in paths:
                if not p.exists() and not p.parent.is_dir():
                    _error(f"{p}: no such file or directory")
            pairs = git_versions(git_ref, paths, cwd=Path.cwd())
            title = f"anchorpath diff: {git_ref} → working tree"
        else:
            if len(versions) != 2:
                raise click.UsageError("give OLD and NEW (or --git REF [PATH...])")
            old, new = load_version(versions[0], sel_dir), load_version(versions[1], sel_dir)
            pairs = [(old, new)]
            title = f"anchorpath diff {old.ref.label} → {new.ref.label}"
        files = diff_pairs(pairs, state_dir=state)
    except AnchorpathError as exc:
        _error(str(exc))
    report = DiffReport(tuple(files), title)
    if fmt == "json":
        click.echo(render_json(report), nl=False)
    elif fmt == "md":
        click.echo(render_markdown(report, max_chars=max_chars), nl=False)
    else:
        console = Console(soft_wrap=True, highlight=False)
        for line in render_text(report):
            # names and values come from the files compared (a pull request's): a line that
            # holds anything a terminal acts on is printed made safe, without its colours
            safe = terminal_safe(line.plain)
            console.print(line if safe == line.plain else safe, markup=False)
    sys.exit(1 if report.differs else 0)


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@selectors_option
@config_option
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: one line per file, failures grouped by field; json for tools.",
)
@click.option(
    "--allow-empty",
    is_flag=True,
    help="Pass a file that has no golden fixture with expected records (else: a failure, "
    "since nothing was verified).",
)
def check_cmd(
    paths: tuple[Path, ...],
    selectors_dir: Path | None,
    config_file: Path | None,
    fmt: str,
    allow_empty: bool,
) -> None:
    """Validate selector files and replay their golden fixtures, offline.

    PATH is a selector file or a folder (its *.json files; default: the selectors
    directory). Each file is checked against the schema, its XPaths compiled, and every
    golden fixture page extracted and compared with its expected records. A failure names
    the file, page type, field, page and record, with the expected and the extracted value.
    A file without any fixture with expected records verifies nothing and fails, unless
    --allow-empty.
    No network, no browser: fast enough for a pre-commit hook.

    Exit status: 0 all pass, 1 a file fails, 2 an error (no selector file found).

    \b
    Examples:
      anchorpath check
      anchorpath check selectors/
      anchorpath check selectors/mfds-dmf.json --format json
      anchorpath check selectors/hand-written.json --allow-empty
    """
    from anchorpath.review.check import check_file, selector_files

    targets = list(paths) or [_dirs(selectors_dir, None, config_file)[0]]
    files = selector_files(targets)
    if not files:
        _error(f"no selector files (*.json) in {', '.join(map(str, targets))}")
    results = [check_file(f, allow_empty=allow_empty) for f in files]
    failed = [r for r in results if not r.ok]
    if fmt == "json":
        out = {"ok": not failed, "files": [r.to_dict() for r in results]}
        click.echo(json.dumps(out, indent=2, ensure_ascii=False, default=str))
        sys.exit(1 if failed else 0)
    for r in results:
        who = f"{r.site} v{r.version}" if r.site else "invalid"
        for line in r.warnings:
            click.echo(f"warning: {line}", err=True)
        path = quote_name(r.path)
        if r.ok:
            _say(f"ok   {path}: {who}, {r.fixtures} fixture pages, {r.records} records reproduced")
            continue
        _say(f"FAIL {path}: {who}, {len(r.problems)} problem(s)")
        groups: dict[str, list[str]] = {}
        for p in r.problems:
            if p.kind == "invalid":  # already FILE:/json/pointer: message
                _say(f"  {p.message}")
                continue
            record = f" [{quote_name(p.record)}]" if p.record else ""
            where = f"{quote_name(p.page)}{record}: " if p.page else ""
            groups.setdefault(p.where, []).append(f"{where}{p.message}")
        for where, lines in groups.items():
            _say(f"  {where}: {len(lines)} failure(s)")
            for line in lines[:3]:
                _say(f"    {line}")
            if len(lines) > 3:
                _say(f"    … {len(lines) - 3} more")
    _say(f"{len(results)} selector file(s) checked, {len(failed)} failed")
    sys.exit(1 if failed else 0)


COMMANDS = [diff_cmd, check_cmd]
