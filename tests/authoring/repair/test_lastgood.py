"""The last good side of the adoption check: changed fields, fallbacks included, must read the
last good records on the last good snapshots and on the golden fixtures."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from anchorpath.authoring.repair.lastgood import (
    changed_fields,
    check_last_good,
    last_good_pages,
    prune_fallbacks,
)
from anchorpath.bundle import read_bundle
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import parse_selector_data
from anchorpath.selectors.model import SelectorFile

from .conftest import page_html, write_bundle

ORIGIN = "http://127.0.0.1:1111"
ROWS = [("A-1", "Acme", "France"), ("B-2", "Borg", "Japan"), ("C-3", "Cyber", "Korea")]


def list_old(rows: list[tuple[str, str, str]]) -> str:
    body = "".join(f"<tr><td>{c}</td><td>{m}</td><td>{k}</td></tr>" for c, m, k in rows)
    return page_html(
        f'<table id="t"><tr><th>Code</th><th>Maker</th><th>Country</th></tr>{body}</table>'
    )


def list_new(rows: list[tuple[str, str, str]]) -> str:
    body = "".join(
        f'<tr><td>{c}</td><td>{k}</td><td class="maker">{m}</td></tr>' for c, m, k in rows
    )
    return page_html(
        f'<table id="t"><tr><th>Code</th><th>Country</th><th>Maker</th></tr>{body}</table>'
    )


def data() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "policy": {"basis": "robots"},
        "site": {"id": "boards", "name": "Boards"},
        "version": 1,
        "provenance": {"method": "hand"},
        "fetch": {"start_urls": [f"{ORIGIN}/list?p=1"]},
        "page_types": {
            "list": {
                "match": "/list\\?",
                "record_root": "//table[@id='t']/tr[td]",
                "fields": {
                    "code": {"xpath": "td[1]", "type": "string", "required": True},
                    "maker": {"xpath": "td[2]", "type": "string"},
                },
            }
        },
        "key": ["code"],
    }


def repaired(old: SelectorFile, fallbacks: tuple[str, ...]) -> SelectorFile:
    """The new template's maker column by class, with ``fallbacks`` (``td[3]`` is positional:
    right on the new template, the country column on the old one)."""
    pt = old.page_types["list"]
    maker = replace(pt.fields["maker"], xpath="td[@class='maker']", fallbacks=fallbacks)
    new_pt = replace(pt, fields={**pt.fields, "maker": maker})
    return replace(old, page_types={"list": new_pt})


def _bundle(tmp_path: Path) -> Path:
    return write_bundle(
        tmp_path / "bundle",
        data(),
        [(f"{ORIGIN}/list?p=1", list_old(ROWS))],
        [(f"{ORIGIN}/list?p=1", list_new(ROWS))],
        failing_fields={"list.maker": ["vanished"]},
    )


def test_a_fallback_reading_another_column_on_the_old_template_fails_the_check(
    tmp_path: Path,
) -> None:
    bundle = read_bundle(_bundle(tmp_path))
    old = bundle.selector
    new = repaired(old, ("td[3]",))
    # On the new template the repaired file is right ...
    got = [r.values["maker"] for r in extract(new, list_new(ROWS), f"{ORIGIN}/list?p=1")]
    assert got == ["Acme", "Borg", "Cyber"]
    # ... but on the last good snapshot its fallback reads the country column.
    assert changed_fields(old, new) == {"list": ("maker",)}
    pages = last_good_pages(bundle)
    records, values, mismatches = check_last_good(new, old, pages)
    assert (records, values) == (3, 3)
    assert (mismatches[0].field, mismatches[0].want, mismatches[0].got) == (
        "maker",
        "Acme",
        "France",
    )
    assert "last good" in mismatches[0].describe()


def test_prune_drops_wrong_fallbacks_and_keeps_the_old_xpath_last(tmp_path: Path) -> None:
    bundle = read_bundle(_bundle(tmp_path))
    old = bundle.selector
    new = repaired(old, ("td[3]", "td[last()-1]"))
    pages = last_good_pages(bundle)
    pt = prune_fallbacks(new, old, "list", pages)
    # td[3] reads "France" on the old template: dropped; td[last()-1] reads the maker: kept.
    assert pt.fields["maker"].fallbacks == ("td[last()-1]", "td[2]")
    fixed = replace(new, page_types={"list": pt})
    assert check_last_good(fixed, old, pages)[2] == []


def test_golden_fixtures_count_as_last_good_pages(tmp_path: Path) -> None:
    sel = tmp_path / "selectors"
    (sel / "fixtures").mkdir(parents=True)
    rows = [("D-4", "Dunder", "Chile"), ("E-5", "Evil", "Peru")]
    html = list_old(rows)
    (sel / "fixtures" / "p.html").write_text(html, encoding="utf-8")
    sf = parse_selector_data(data())
    recs = [r.to_dict() for r in extract(sf, html, f"{ORIGIN}/list?p=7")]
    (sel / "fixtures" / "p.records.json").write_text(json.dumps(recs), encoding="utf-8")
    d = data()
    d["fixtures"] = [
        {
            "page": "fixtures/p.html",
            "url": f"{ORIGIN}/list?p=7",
            "records": "fixtures/p.records.json",
        }
    ]
    (sel / "boards.json").write_text(json.dumps(d), encoding="utf-8")
    b = write_bundle(
        tmp_path / "bundle",
        d,
        [(f"{ORIGIN}/list?p=1", list_old(ROWS))],
        [(f"{ORIGIN}/list?p=1", list_new(ROWS))],
        failing_fields={},
    )
    manifest = json.loads((b / "bundle.json").read_text(encoding="utf-8"))
    manifest["selector_source"] = str(sel / "boards.json")
    (b / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    bundle = read_bundle(b)
    pages = last_good_pages(bundle)
    assert [p.where for p in pages] == ["last_good/001.html", "fixtures/p.html"]
    _r, _v, mismatches = check_last_good(repaired(bundle.selector, ("td[3]",)), sf, pages)
    assert {m.got for m in mismatches} == {"France", "Japan", "Korea", "Chile", "Peru"}
