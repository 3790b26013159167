"""What ``author edit`` reviews an existing selector file on: the file, the page type (the one
named, else the only one with fields), and its seeds (the pages given, else the file's golden
fixtures of that page type), each wrong choice a one-line error naming the file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from anchorpath._errors import AuthoringError
from anchorpath._text import did_you_mean
from anchorpath.authoring.seeds import SeedPage, load_seed
from anchorpath.selectors.load import find_selector_file, fixture_path, load_selector_file
from anchorpath.selectors.model import SelectorFile

__all__ = ["EDIT_SEEDS", "Reopened", "fixture_seeds", "pick_page_type", "reopen"]

#: Seeds an ``author edit`` session takes from the file's fixtures when none are given.
EDIT_SEEDS = 3


@dataclass(frozen=True)
class Reopened:
    """An existing file opened for review: where it is, the page type and its seeds."""

    selector_file: SelectorFile
    path: Path
    page_type: str
    pages: tuple[SeedPage, ...]


def pick_page_type(sf: SelectorFile, name: str | None) -> str:
    """``name`` if the file has it, else the only page type with fields."""
    if name is not None:
        if name not in sf.page_types:
            raise AuthoringError(
                f"{sf.site.id}: no page type {name!r}" + did_you_mean([name], sf.page_types)
            )
        return str(name)
    with_fields = [n for n, pt in sf.page_types.items() if pt.fields]
    if len(with_fields) == 1:
        return str(with_fields[0])
    raise AuthoringError(
        f"{sf.site.id} has several page types ({', '.join(with_fields)}): choose one with "
        "--page-type"
    )


def fixture_seeds(sf: SelectorFile, path: Path, page_type: str) -> list[SeedPage]:
    """Up to :data:`EDIT_SEEDS` golden fixtures of ``page_type`` (only inside ``fixtures/``
    next to the file) as seeds."""
    rx = re.compile(sf.page_types[page_type].match)
    out = []
    for f in sf.fixtures:
        try:  # only inside fixtures/ next to the file, as everywhere
            page = fixture_path(path, f.page)
        except OSError:
            continue
        if rx.search(f.url) and page.is_file():
            out.append(load_seed(str(page), url=f.url))
        if len(out) == EDIT_SEEDS:
            break
    if not out:
        raise AuthoringError(
            f"{path}: no golden fixture of page type {page_type!r} to review on; give --seed "
            "PAGE --seed-url URL"
        )
    return out


def reopen(
    site: str,
    selectors_dir: str | Path,
    *,
    page_type: str | None = None,
    seeds: tuple[str, ...] = (),
    seed_urls: tuple[str, ...] = (),
) -> Reopened:
    """Site ``site``'s file in ``selectors_dir`` with the page type to review and its seeds
    (``seeds``, their URLs in ``seed_urls`` when given; else the golden fixtures)."""
    path = find_selector_file(site, selectors_dir)
    sf = load_selector_file(path)
    name = pick_page_type(sf, page_type)
    if seeds:
        pages = [load_seed(s, url=seed_urls[i] if seed_urls else None) for i, s in enumerate(seeds)]
    else:
        pages = fixture_seeds(sf, path, name)
    return Reopened(sf, path, name, tuple(pages))
