"""Writing a reviewed selector file together with its golden fixtures.

Layout (the demo's): next to ``SITE.json``, ``fixtures/SITE/<page type>-<k>.html`` is a seed's
snapshot (the bytes as loaded, or the decoded text as UTF-8 when no bytes are at hand) and
``<page type>-<k>.records.json`` the records the reviewed file extracts from it (one
``anchorpath extract`` JSON object per record), both listed in the file's ``fixtures``; the
highlighted screenshots go to ``fixtures/SITE/screenshots/``. The drift gate seeds a site's
first baseline from these records, ``anchorpath check`` replays them.

A seed that is already a fixture of the file (``author edit``) keeps its snapshot; its
expected records are updated only in the fields the session changed, added or dropped, so
values a person never touched stay the independent truth they were. Nothing is left behind
when the save fails.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import warnings
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from anchorpath._errors import AnchorpathError, AuthoringError
from anchorpath.authoring.seeds import SeedPage
from anchorpath.selectors.evaluate import ExtractionWarning, extract
from anchorpath.selectors.load import fixture_path, save_selector_file
from anchorpath.selectors.model import Fixture, SelectorFile

__all__ = ["fixture_dir", "save_with_fixtures", "snapshot_bytes"]

_META_CHARSET = re.compile(
    r"<meta[^>]+(?:charset\s*=|http-equiv\s*=\s*[\"']?content-type)[^>]*>", re.IGNORECASE
)


def fixture_dir(target: Path, site_id: str) -> Path:
    """``fixtures/SITE`` next to the selector file."""
    return target.parent / "fixtures" / site_id


def snapshot_bytes(page: SeedPage) -> bytes:
    """The seed's bytes: the file it was loaded from when its hash matches, else its text as
    UTF-8 (with any charset declaration replaced, so the bytes read back as the same text)."""
    path = Path(page.source)
    try:
        if path.is_file():
            body = path.read_bytes()
            if hashlib.sha256(body).hexdigest() == page.sha256:
                return body
    except OSError:
        pass
    text = _META_CHARSET.sub("", page.html)
    return ('<meta charset="utf-8">' + text).encode("utf-8", "surrogatepass")


def _records(sf: SelectorFile, body: bytes, url: str) -> list[dict[str, Any]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ExtractionWarning)
        return [r.to_dict() for r in extract(sf, body, url)]


def _dump(path: Path, records: Sequence[dict[str, Any]]) -> None:
    path.write_text(
        json.dumps(list(records), ensure_ascii=False, indent=2, default=str) + "\n",
        encoding="utf-8",
    )


def _merge(
    old: list[dict[str, Any]], new: list[dict[str, Any]], changed: Sequence[str]
) -> list[dict[str, Any]]:
    """Old expected records with only the changed fields taken from the new extraction."""
    if len(old) != len(new):
        return new
    out = []
    for o, n in zip(old, new, strict=True):
        rec = {k: v for k, v in o.items() if k not in changed}
        rec.update({k: v for k, v in n.items() if k in changed})
        out.append(
            {k: rec[k] for k in n if k in rec} | {k: v for k, v in rec.items() if k not in n}
        )
    return out


def _follow_changes(
    sf: SelectorFile,
    target: Path,
    fixture: Fixture,
    page_type: str,
    changed: Sequence[str],
    updated: list[tuple[Path, str]],
) -> None:
    """Rewrite one existing fixture's expected records of ``page_type`` as ``sf`` now reads
    them (only the ``changed`` fields); the file and its old text go to ``updated`` first, so
    that a failure later restores it."""
    if fixture.records is None:
        return
    try:  # only inside fixtures/ next to the file, as everywhere
        page_path = fixture_path(target, fixture.page)
        rec_path = fixture_path(target, fixture.records)
    except OSError:
        return
    if not page_path.is_file() or not rec_path.is_file():
        return
    new = _records(sf, page_path.read_bytes(), fixture.url)
    if not any(r.get("_page_type") == page_type for r in new):
        return
    old_text = rec_path.read_text(encoding="utf-8")
    merged = _merge(json.loads(old_text), new, changed)
    if merged != json.loads(old_text):
        updated.append((rec_path, old_text))
        _dump(rec_path, merged)


def save_with_fixtures(
    sf: SelectorFile,
    target: Path,
    pages: Sequence[SeedPage],
    page_type: str,
    *,
    changed: Sequence[str] = (),
    screenshots: Sequence[Path] = (),
) -> tuple[SelectorFile, list[Path]]:
    """Save ``sf`` to ``target`` (version 1, or N+1 over an existing file) with a golden fixture
    per seed; return what was saved and the files written."""
    target = Path(target)
    folder = fixture_dir(target, sf.site.id)
    rel = folder.relative_to(target.parent)
    written: list[Path] = []
    created_folder = not folder.exists()
    fixtures = list(sf.fixtures)
    by_url = {f.url: i for i, f in enumerate(fixtures)}
    updated: list[tuple[Path, str]] = []  # (file, old text) to restore on failure
    try:
        folder.mkdir(parents=True, exist_ok=True)
        # Expected records of the page type's existing fixtures follow the session's changes.
        for f in fixtures:
            _follow_changes(sf, target, f, page_type, changed, updated)
        taken = {p.name for p in folder.iterdir()}
        k = 1
        for page in pages:
            if page.url in by_url:
                continue
            while f"{page_type}-{k}.html" in taken:
                k += 1
            name = f"{page_type}-{k}"
            taken.add(f"{name}.html")
            body = snapshot_bytes(page)
            (folder / f"{name}.html").write_bytes(body)
            written.append(folder / f"{name}.html")
            _dump(folder / f"{name}.records.json", _records(sf, body, page.url))
            written.append(folder / f"{name}.records.json")
            fixtures.append(
                Fixture(
                    (rel / f"{name}.html").as_posix(),
                    page.url,
                    (rel / f"{name}.records.json").as_posix(),
                )
            )
            by_url[page.url] = len(fixtures) - 1
        if screenshots:
            shots = folder / "screenshots"
            shots.mkdir(exist_ok=True)
            for s in screenshots:
                dest = shots / Path(s).name
                shutil.copyfile(s, dest)
                written.append(dest)
        saved = save_selector_file(replace(sf, fixtures=tuple(fixtures)), target)
    except (AnchorpathError, OSError, ValueError) as exc:
        for p in written:
            p.unlink(missing_ok=True)
        for p, text in updated:
            p.write_text(text, encoding="utf-8")
        if created_folder:
            shutil.rmtree(folder, ignore_errors=True)
        if isinstance(exc, AnchorpathError):
            raise
        raise AuthoringError(f"{folder}: cannot write the fixtures: {exc}") from exc
    return saved, [p for p, _old in updated] + written
