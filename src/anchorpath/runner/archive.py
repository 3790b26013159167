"""The pages a run archived, read back: every reader of a run's pages goes through here.

A run's WARC segments hold each page exactly as it was answered. A ``304 Not Modified`` holds
no body: the fetcher answered it with the body it kept from the last ``2xx`` of that URL, and
that body was archived by an earlier run of the site (any verdict: the fetcher keeps what it
last received). :func:`last_archived` follows each 304 back to that run, so that the alert
bundle and its prompt, ``diff --state`` and a resumed run read what the run read — not an empty
page — after a day on which the site answered everything with 304 (the steady state of any
server that sends ``ETag`` / ``Last-Modified``). ``replay`` resolves its 304s from the pages it
has already extracted, with the same rule (:func:`stands_for`).

The earlier runs of a run are the other run directories of its site (``<state>/runs/<site>/``)
that started before it: run ids begin with their UTC start second, and runs of one site never
overlap (the site lock), so within one second the run whose archive was written last is the
later one. No database is read: a crawl resumed on a worker can resolve its 304s too.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

from anchorpath._errors import ArchiveError
from anchorpath.runner.run_types import warc_segments

__all__ = ["ArchivedPage", "archived_pages", "earlier_runs", "last_archived", "stands_for"]


@dataclass(frozen=True)
class ArchivedPage:
    """A complete response found in a run's WARC segments (for a resolved 304: the 304's
    status, the body it stands for, the earlier headers updated by the 304's)."""

    url: str
    status: int
    headers: dict[str, str]
    body: bytes
    #: The run directory that archived ``body`` when it is not the run's own (a 304's).
    body_from: str | None = None


def archived_pages(segments: list[Path]) -> dict[str, ArchivedPage]:
    """Complete responses of the given WARC segments by URL, as archived (later segments win;
    a 304 has no body).

    A segment cut short by a kill is read up to its last complete record: the remainder is
    simply fetched again.
    """
    from anchorpath.fetch.warc import WarcReader

    out: dict[str, ArchivedPage] = {}
    for seg in segments:
        if not seg.is_file():
            continue
        try:
            for url, status, headers, body in WarcReader([seg]).responses():
                out[url] = ArchivedPage(url, status, headers, body)
        except ArchiveError:
            continue  # truncated tail of a killed attempt
    return out


def stands_for(etag: str | None, earlier_etag: str | None) -> bool:
    """Whether an earlier response whose ``ETag`` was ``earlier_etag`` can be the body of a 304
    that carried ``etag``: the same tag when both are known (a server that sends no tag
    validated by date, and the fetcher kept only the latest body)."""
    return etag is None or earlier_etag is None or etag == earlier_etag


def _order(run_dir: Path) -> tuple[str, int]:
    """Sort key of a run directory: its start second (from the run id), then when its archive
    was last written (two runs started in the same second)."""
    written = 0
    for seg in warc_segments(run_dir):
        try:
            written = max(written, seg.stat().st_mtime_ns)
        except OSError:
            continue
    return run_dir.name.split("-", 1)[0], written


def earlier_runs(run_dir: Path) -> list[Path]:
    """The other run directories of ``run_dir``'s site that started before it, newest first."""
    try:
        siblings = [d for d in run_dir.parent.iterdir() if d.is_dir() and d != run_dir]
    except OSError:
        return []
    me = _order(run_dir)
    keyed = [(_order(d), d) for d in siblings]
    return [d for key, d in sorted(keyed, reverse=True) if key < me]


def last_archived(run_dir: Path, urls: Collection[str] | None = None) -> dict[str, ArchivedPage]:
    """The pages ``run_dir`` archived, by URL, each with the body the run read: a ``2xx`` as
    archived, a ``304`` with the body of the latest ``2xx`` of the same URL that an earlier run
    of the site archived (:func:`stands_for`). Only ``urls`` when given; pages whose body
    cannot be found (a 304 whose earlier runs were deleted) and answers that are not pages
    (redirects, errors) are left out."""
    own = archived_pages(warc_segments(run_dir))
    wanted = own if urls is None else {u: own[u] for u in urls if u in own}
    out = {u: p for u, p in wanted.items() if 200 <= p.status < 300}
    pending = {u: p for u, p in wanted.items() if p.status == 304}
    for earlier in earlier_runs(run_dir):
        if not pending:
            break
        pages = archived_pages(warc_segments(earlier))
        for url in [u for u in pending if u in pages]:
            page, found = pending[url], pages[url]
            if not 200 <= found.status < 300:
                continue
            if not stands_for(page.headers.get("etag"), found.headers.get("etag")):
                continue
            out[url] = replace(
                page,
                headers={**found.headers, **page.headers},
                body=found.body,
                body_from=str(earlier),
            )
            del pending[url]
    return out
