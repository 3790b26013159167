"""Where the compared versions and the replayed pages come from (the I/O edge of review).

* a version: a selector file path, ``SITE`` (its current file in the selectors directory),
  ``SITE@N`` / ``PATH@N`` (version N from the archive ``.history/SITE/vN.json``, or the
  current file if it is version N), or a file as it is at a git ref;
* its golden fixture pages: the ``fixtures`` the version names, read relative to the current
  file's folder (archived versions name paths relative to it too), from the same git ref when
  the version came from git;
* the latest run's pages: every complete response archived in its WARC files.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from anchorpath._errors import AnchorpathError, ReviewError, SelectorFileError
from anchorpath.review.git import GitRepo
from anchorpath.review.model import VersionRef
from anchorpath.review.replay import Page
from anchorpath.selectors.load import find_selector_file, load_selector_file, parse_selector_data
from anchorpath.selectors.model import SelectorFile

__all__ = [
    "Version",
    "git_versions",
    "is_selector_file",
    "latest_run_pages",
    "load_version",
    "merge_pages",
]

_AT = re.compile(r"(.+)@(\d+)")
Reader = Callable[[Path], bytes | None]


@dataclass(frozen=True)
class Version:
    """One side of a diff: the model, how to name it, its fixture pages and what was amiss
    reading them."""

    ref: VersionRef
    selector: SelectorFile
    path: str
    pages: tuple[Page, ...] = ()
    notes: tuple[str, ...] = ()


def _read_file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _fixture_pages(
    sf: SelectorFile, base: Path, read: Reader
) -> tuple[tuple[Page, ...], list[str]]:
    pages, missing = [], []
    for fx in sf.fixtures:
        body = read(base / fx.page)
        if body is None:
            missing.append(fx.page)
            continue
        pages.append(Page(fx.url, body, "fixtures", fx.page))
    notes = []
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        notes.append(
            f"{len(missing)} golden fixture page(s) of {sf.site.id} v{sf.version} not found "
            f"under {base} ({missing[0]}{more})"
        )
    return tuple(pages), notes


def load_version(spec: str, selectors_dir: Path) -> Version:
    """``PATH``, ``SITE``, ``SITE@N`` or ``PATH@N`` as a :class:`Version` with its fixtures."""
    m = _AT.fullmatch(spec)
    target, number = (m.group(1), int(m.group(2))) if m else (spec, None)
    looks_like_path = target.endswith(".json") or "/" in target or "\\" in target
    if looks_like_path and not Path(target).is_file():
        raise ReviewError(f"{target}: no such selector file")
    try:
        path = find_selector_file(target, selectors_dir)
        sf = load_selector_file(path, version=number)
    except SelectorFileError as exc:
        raise ReviewError(str(exc)) from exc
    pages, notes = _fixture_pages(sf, path.parent, _read_file)
    label = spec if m else str(path)
    return Version(VersionRef(label, sf.version), sf, str(path), pages, tuple(notes))


def is_selector_file(data: bytes | None) -> bool:
    """True for a JSON object that looks like a selector file (golden records, bundles and
    other JSON beside it are not)."""
    if data is None:
        return False
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(obj, dict) and "page_types" in obj and "site" in obj


def _parse(data: bytes, where: str) -> SelectorFile:
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ReviewError(f"{where}: invalid JSON: {exc}") from exc
    try:
        return parse_selector_data(obj, where)
    except SelectorFileError as exc:
        raise ReviewError(str(exc)) from exc


def git_versions(
    ref: str, paths: Sequence[Path], *, cwd: Path
) -> list[tuple[Version | None, Version | None]]:
    """``(old at REF, new in the working tree)`` for every selector file under ``paths`` that
    differs; a side is None where the file does not exist. Archived versions (``.history``)
    are not compared: they never change, they only appear."""
    repo = GitRepo.open(ref, cwd)
    out: list[tuple[Version | None, Version | None]] = []
    for path in repo.changed(paths):
        if ".history" in path.parts or path.suffix != ".json":
            continue
        rel = repo.relative(path)
        old_bytes = repo.show(rel)
        new_bytes = _read_file(path)
        if not (is_selector_file(old_bytes) or is_selector_file(new_bytes)):
            continue
        old = new = None
        if old_bytes is not None:
            where = f"{ref}:{rel}"
            sf = _parse(old_bytes, where)

            def at_ref(p: Path) -> bytes | None:
                found = repo.show(repo.relative(p))
                return found if found is not None else _read_file(p)

            pages, notes = _fixture_pages(sf, path.parent, at_ref)
            old = Version(VersionRef(where, sf.version), sf, rel, pages, tuple(notes))
        if new_bytes is not None:
            sf = _parse(new_bytes, rel)
            pages, notes = _fixture_pages(sf, path.parent, _read_file)
            new = Version(
                VersionRef(f"working tree:{rel}", sf.version), sf, rel, pages, tuple(notes)
            )
        out.append((old, new))
    return out


def merge_pages(*groups: Iterable[Page]) -> tuple[Page, ...]:
    """Pages of several sources without repeats (same URL and same bytes), in order."""
    seen: set[tuple[str, str]] = set()
    out = []
    for group in groups:
        for page in group:
            k = (page.url, hashlib.sha256(page.body).hexdigest())
            if k not in seen:
                seen.add(k)
                out.append(page)
    return tuple(out)


def latest_run_pages(
    state_dir: Path, site: str, selectors: Sequence[SelectorFile]
) -> tuple[str | None, tuple[Page, ...]]:
    """The id of ``site``'s latest run in ``state_dir`` and its pages that a page type of one
    of ``selectors`` matches, as the run read them (complete 2xx responses, and 304s with the
    body they stand for: :func:`~anchorpath.runner.archive.last_archived`)."""
    from anchorpath.runner.archive import last_archived
    from anchorpath.runner.store.database import DB_NAME, Store

    if not (state_dir / DB_NAME).is_file():
        raise ReviewError(f"{state_dir}: no state database ({DB_NAME}); is this a state directory?")
    try:
        store = Store.in_state_dir(state_dir)
        try:
            runs = store.runs(site, limit=1)
        finally:
            store.close()
    except AnchorpathError as exc:
        raise ReviewError(str(exc)) from exc
    if not runs:
        return None, ()
    run = runs[0]
    run_dir = Path(run.run_dir) if run.run_dir else state_dir / "runs" / site / run.id
    try:
        archived = last_archived(run_dir)
    except AnchorpathError as exc:
        raise ReviewError(str(exc)) from exc
    pages = [
        Page(url, page.body, "run", f"run {run.id}")
        for url, page in archived.items()
        if any(sf.page_type_for(url) for sf in selectors)
    ]
    return run.id, tuple(pages)
