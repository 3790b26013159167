"""``diff_versions``: the semantic diff of two versions plus their replay, as one FileDiff.

``diff_versions`` is pure given its inputs: the two :class:`~anchorpath.review.sources.Version`
objects (models and fixture pages already read) and, optionally, a run's archived pages.
``diff_pairs`` adds the one read it needs: each site's latest run from a state directory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from anchorpath.review.model import FileDiff, ReplaySource
from anchorpath.review.replay import Page, replay
from anchorpath.review.semantic import crawl_changes, metadata_changes, page_type_diffs
from anchorpath.review.sources import Version, latest_run_pages, merge_pages

__all__ = ["diff_pairs", "diff_versions"]


def diff_versions(
    old: Version | None,
    new: Version | None,
    *,
    run_pages: Sequence[Page] = (),
    run_label: str | None = None,
) -> FileDiff:
    """Compare ``old`` with ``new`` and replay both on the union of their golden fixture pages
    and ``run_pages``."""
    if old is None and new is None:
        raise ValueError("diff_versions needs at least one version")
    osf = old.selector if old else None
    nsf = new.selector if new else None
    site = (nsf or osf).site.id  # type: ignore[union-attr]
    fixtures = merge_pages(old.pages if old else (), new.pages if new else ())
    run = merge_pages(run_pages)
    result = replay(osf, nsf, (*fixtures, *run))
    page_types = []
    for ptd in page_type_diffs(osf, nsf):
        fields = tuple(replace(f, replay=result.fields.get((ptd.name, f.name))) for f in ptd.fields)
        page_types.append(replace(ptd, fields=fields, records=result.records.get(ptd.name)))
    sources = []
    if fixtures:
        sources.append(ReplaySource("fixtures", "golden fixtures", len(fixtures)))
    if run:
        sources.append(ReplaySource("run", run_label or "latest run", len(run)))
    notes = [*(old.notes if old else ()), *(new.notes if new else ()), *result.problems]
    if not fixtures and not run:
        notes.append("no pages to replay (no golden fixtures; pass --state for the latest run)")
    return FileDiff(
        site=site,
        path=(new or old).path,  # type: ignore[union-attr]
        old=old.ref if old else None,
        new=new.ref if new else None,
        settings=crawl_changes(osf, nsf),
        page_types=tuple(page_types),
        metadata=metadata_changes(osf, nsf),
        sources=tuple(sources),
        notes=tuple(dict.fromkeys(notes)),
    )


def diff_pairs(
    pairs: Sequence[tuple[Version | None, Version | None]], *, state_dir: Path | None = None
) -> list[FileDiff]:
    """:func:`diff_versions` of each ``(old, new)`` pair; with ``state_dir``, each site's latest
    run's archived pages are replayed too (a note says so when the site has no run there)."""
    out = []
    for old, new in pairs:
        run_pages: tuple[Page, ...] = ()
        run_label = None
        extra: tuple[str, ...] = ()
        if state_dir is not None:
            sides = [v for v in (old, new) if v is not None]
            site = sides[-1].selector.site.id
            run_id, run_pages = latest_run_pages(state_dir, site, [v.selector for v in sides])
            if run_id is None:
                extra = (f"no run of {site} in {state_dir}: replayed on the fixtures only",)
            run_label = f"run {run_id}"
        fd = diff_versions(old, new, run_pages=run_pages, run_label=run_label)
        out.append(replace(fd, notes=(*fd.notes, *extra)) if extra else fd)
    return out
