"""Golden fixtures of the demo selector file: day-1 snapshots and the records expected from them.

The drift gate seeds its first baseline from a selector file's ``fixtures`` (see
:func:`anchorpath.runner.drift.check.seed_baseline`); without them day 1 would be accepted blindly.
:func:`build_fixtures` renders them from the demo's ground truth:

* the snapshots are the exact bytes the demo server serves on day 1 (CP949 / "euc-kr"), rendered
  with :mod:`anchorpath.demo.pages` the way :mod:`anchorpath.demo.server` does (a test compares
  them with a live server's responses);
* the expected records come from :mod:`anchorpath.demo.data` — not from the extractor — so a
  test that extracts the snapshots checks the selector file against an independent truth.

Both copies are checked in: ``selectors/fixtures/mfds-dmf/`` next to the repository's selector
file and ``src/anchorpath/demo/fixtures/mfds-dmf/`` next to the packaged one (which
``anchorpath demo`` copies into its work directory). Regenerate both, and the ``fixtures`` of
both selector files, from the repository root with ``python -m anchorpath.demo.golden``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from anchorpath._errors import SelectorFileError
from anchorpath.demo import pages
from anchorpath.demo.data import Record, expected_events, records_for_day, template_for_day

__all__ = [
    "FIXTURE_DAY",
    "FIXTURE_DIR",
    "FIXTURE_ORIGIN",
    "LIST_PAGES",
    "build_fixtures",
    "copy_packaged_fixtures",
    "detail_records",
    "fixture_entries",
    "write_fixtures",
]

#: The day the snapshots show (the demo's first run).
FIXTURE_DAY = 1
#: Listing pages kept as snapshots.
LIST_PAGES: tuple[int, ...] = (1, 2)
#: Where the files live, relative to the selector file (the same under ``selectors/`` and in
#: the package, so the two selector files stay byte-identical).
FIXTURE_DIR = "fixtures/mfds-dmf"
#: Origin of the fixture URLs: the selector file's placeholder origin.
FIXTURE_ORIGIN = "http://127.0.0.1:8765"

# 등록번호 prefixes spelled in ASCII for file names (수 = imported, 제 = domestic): non-ASCII
# file names are a nuisance in wheels, zips and on some file systems.
_PREFIX_ASCII = {"수": "su", "제": "je"}


def detail_records(day: int = FIXTURE_DAY) -> tuple[Record, ...]:
    """The records whose detail pages are kept, in listing order.

    Every record on the kept listing pages (a consistent mini-crawl of 20 records, so the seeded
    baseline's per-field statistics resemble a full run's; with six detail pages the distinct
    ratios of a 64-record day 1 fell far off the seed before the gate rarefied them) plus every
    record day 2 changes, edits trivially or withdraws: the pages a repair of the selector file
    most needs to see. The newest record's manufacturer name holds
    é (sent as a character reference), one record is domestic (제).
    """
    records = records_for_day(day)
    events = expected_events(day, day + 1)
    wanted = {r.reg_no for k in LIST_PAGES for r in _chunk(records, k)}
    wanted |= {*events.changed, *events.trivial, *events.withdrawn}
    return tuple(r for r in records if r.reg_no in wanted)


def _chunk(records: Sequence[Record], page: int) -> Sequence[Record]:
    return records[(page - 1) * pages.PAGE_SIZE : page * pages.PAGE_SIZE]


def _ascii_key(reg_no: str) -> str:
    return _PREFIX_ASCII.get(reg_no[:1], "x") + reg_no[1:]


def _list_fields(record: Record, page_url: str) -> dict[str, Any]:
    fields = record.as_fields()
    out: dict[str, Any] = {
        name: fields[name]
        for name in (
            "reg_no",
            "ingredient",
            "applicant",
            "manufacturer",
            "country",
            "registered_on",
            "status",
        )
    }
    out["detail_url"] = urljoin(page_url, pages.detail_path(record.reg_no))
    return out


def _row(url: str, page_type: str, values: Mapping[str, Any]) -> dict[str, Any]:
    # The shape of one ``anchorpath extract`` JSON line.
    return {"_url": url, "_page_type": page_type, **values}


def _json(rows: Sequence[Mapping[str, Any]]) -> bytes:
    return (json.dumps(list(rows), indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def fixture_entries(day: int = FIXTURE_DAY) -> list[dict[str, str]]:
    """The selector file's ``fixtures`` list: ``{"page", "url", "records"}`` per snapshot,
    paths relative to the selector file, URLs on :data:`FIXTURE_ORIGIN`."""
    out = []
    for k in LIST_PAGES:
        out.append(
            {
                "page": f"{FIXTURE_DIR}/list-{k}.html",
                "url": FIXTURE_ORIGIN + pages.list_path(k),
                "records": f"{FIXTURE_DIR}/list-{k}.records.json",
            }
        )
    for record in detail_records(day):
        name = f"view-{_ascii_key(record.reg_no)}"
        out.append(
            {
                "page": f"{FIXTURE_DIR}/{name}.html",
                "url": FIXTURE_ORIGIN + pages.detail_path(record.reg_no),
                "records": f"{FIXTURE_DIR}/{name}.records.json",
            }
        )
    return out


def build_fixtures(day: int = FIXTURE_DAY) -> dict[str, bytes]:
    """Every fixture file: path relative to the selector file → bytes. Pure and deterministic."""
    records = records_for_day(day)
    template = template_for_day(day)
    entries = iter(fixture_entries(day))
    out: dict[str, bytes] = {}
    for k in LIST_PAGES:
        entry = next(entries)
        html = pages.render_list(records, k, template=template)
        out[entry["page"]] = pages.encode_page(html)
        out[entry["records"]] = _json(
            [_row(entry["url"], "list", _list_fields(r, entry["url"])) for r in _chunk(records, k)]
        )
    index = {r.reg_no: i for i, r in enumerate(records)}
    for record in detail_records(day):
        entry = next(entries)
        i = index[record.reg_no]
        # Neighbours as the server passes them (prev/next links on the page).
        html = pages.render_detail(
            record,
            template=template,
            prev=records[i - 1] if i > 0 else None,
            next_=records[i + 1] if i + 1 < len(records) else None,
        )
        out[entry["page"]] = pages.encode_page(html)
        out[entry["records"]] = _json([_row(entry["url"], "detail", record.as_fields())])
    return out


def write_fixtures(selector_dir: Path, files: Mapping[str, bytes] | None = None) -> list[Path]:
    """Write the fixture files under ``selector_dir`` (the selector file's folder)."""
    written = []
    for rel, body in (files if files is not None else build_fixtures()).items():
        path = selector_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body)
        written.append(path)
    return written


def copy_packaged_fixtures(selector_dir: Path) -> list[Path]:
    """Copy the fixture files shipped in the package next to a selector file in
    ``selector_dir`` (what ``anchorpath demo`` does before its first run)."""
    from importlib import resources

    root = resources.files("anchorpath.demo")
    names = [name for entry in fixture_entries() for name in (entry["page"], entry["records"])]
    files = {}
    for name in names:
        node = root
        for part in name.split("/"):  # Traversable.joinpath takes one segment at a time
            node = node.joinpath(part)
        try:
            files[name] = node.read_bytes()
        except OSError as exc:
            raise SelectorFileError(
                f"anchorpath/demo/{name}: packaged demo fixture cannot be read "
                f"(broken install?): {exc.strerror or exc}"
            ) from exc
    try:
        return write_fixtures(selector_dir, files)
    except OSError as exc:
        raise SelectorFileError(
            f"{selector_dir}: cannot write the demo fixtures: {exc.strerror or exc}"
        ) from exc


def _main(argv: Sequence[str]) -> int:
    """Regenerate both checked-in copies and the ``fixtures`` of both selector files."""
    from dataclasses import replace

    from anchorpath.selectors.load import dump_selector_file, load_selector_file
    from anchorpath.selectors.model import Fixture

    repo = Path(argv[0]) if argv else Path.cwd()
    files = build_fixtures()
    targets = (repo / "selectors", repo / "src" / "anchorpath" / "demo")
    fixtures = tuple(Fixture(e["page"], e["url"], e["records"]) for e in fixture_entries())
    for target in targets:
        write_fixtures(target, files)
        sf_path = target / "mfds-dmf.json"
        sf = replace(load_selector_file(sf_path), fixtures=fixtures)
        text = dump_selector_file(sf)
        sf_path.write_text(text, encoding="utf-8")
        print(f"wrote {len(files)} fixture files and {sf_path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
