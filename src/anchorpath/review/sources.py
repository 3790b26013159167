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
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from anchorpath._errors import AnchorpathError, ReviewError, SelectorFileError
from anchorpath._text import quote_name
from anchorpath._untrusted import MAX_PAGE_BYTES, loads_json, read_capped
from anchorpath.review.git import GitRepo
from anchorpath.review.model import VersionRef
from anchorpath.review.replay import Page
from anchorpath.selectors.load import (
    find_selector_file,
    fixture_path,
    load_selector_file,
    parse_json,
    parse_selector_data,
)
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
#: Reads a path the selector file names (relative to its folder): its bytes, or None.
Reader = Callable[[str], bytes | None]


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
        return read_capped(path, MAX_PAGE_BYTES, regular=True)
    except OSError:
        return None


def _in_folder(sf_path: Path) -> Reader:
    """A reader of the files the selector file at ``sf_path`` names, confined to its
    fixtures folder (symlinks resolved), each at most :data:`MAX_PAGE_BYTES`."""

    def read(relative: str) -> bytes | None:
        try:
            return read_capped(fixture_path(sf_path, relative), MAX_PAGE_BYTES, regular=True)
        except OSError:
            return None

    return read


def _fixture_pages(
    sf: SelectorFile, base: Path, read: Reader
) -> tuple[tuple[Page, ...], list[str]]:
    pages, missing = [], []
    for fx in sf.fixtures:
        body = read(fx.page)
        if body is None:
            missing.append(quote_name(fx.page))
            continue
        pages.append(Page(fx.url, body, "fixtures", fx.page))
    notes = []
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        notes.append(
            f"{len(missing)} golden fixture page(s) of {sf.site.id} v{sf.version} not found "
            f"under {quote_name(base)} ({missing[0]}{more})"
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
        sf = load_selector_file(path, version=number, check_files=True)
    except SelectorFileError as exc:
        raise ReviewError(str(exc)) from exc
    pages, notes = _fixture_pages(sf, path.parent, _in_folder(path))
    label = spec if m else str(path)
    return Version(VersionRef(label, sf.version), sf, str(path), pages, tuple(notes))


def is_selector_file(data: bytes | None) -> bool:
    """True for a JSON object that looks like a selector file (golden records, bundles and
    other JSON beside it are not)."""
    if data is None:
        return False
    try:
        obj = loads_json(data)
    except (ValueError, UnicodeDecodeError):
        # Too deep or broken: a JSON object that names a site may still be meant as one.
        head = data[:4096]
        return data.lstrip()[:1] == b"{" and b'"page_types"' in data and b'"site"' in head
    return isinstance(obj, dict) and "page_types" in obj and "site" in obj


def _parse(data: bytes, where: str, base: Path) -> SelectorFile:
    """A selector file's bytes as a model (``base``: the folder it is in); every problem is
    one :class:`ReviewError`."""
    try:
        return parse_selector_data(parse_json(data, where), where, base=base)
    except SelectorFileError as exc:
        raise ReviewError(str(exc)) from exc


def _at_ref(repo: GitRepo, folder: str, working: Reader) -> Reader:
    """A reader of the files a selector file in ``folder`` names, as they are at the ref (the
    working tree's, confined, when the ref lacks one). The names were checked on parsing; git
    gives a regular file's bytes only, so a symlink there is never followed."""

    def read(relative: str) -> bytes | None:
        found = repo.show(f"{folder}/{relative}" if folder else relative)
        return found if found is not None else working(relative)

    return read


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
        new_bytes = _read_file(path) if not path.is_symlink() else None
        if not (is_selector_file(old_bytes) or is_selector_file(new_bytes)):
            continue
        old = new = None
        name = quote_name(rel)
        if old_bytes is not None:
            where = f"{ref}:{name}"
            sf = _parse(old_bytes, where, path.parent)
            at_ref = _at_ref(repo, rel.rpartition("/")[0], _in_folder(path))
            pages, notes = _fixture_pages(sf, path.parent, at_ref)
            old = Version(VersionRef(where, sf.version), sf, name, pages, tuple(notes))
        if new_bytes is not None:
            sf = _parse(new_bytes, name, path.parent)
            pages, notes = _fixture_pages(sf, path.parent, _in_folder(path))
            new = Version(
                VersionRef(f"working tree:{name}", sf.version), sf, name, pages, tuple(notes)
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
