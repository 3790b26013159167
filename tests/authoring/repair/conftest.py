"""Repair test helpers: the shop's detail page type and its old and new templates, and a drift
bundle written as the runner writes it (snapshots with their hashes, the last good records, the
manifest)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import parse_selector_data


def page_html(body: str) -> str:
    return f'<html><head><meta charset="utf-8"><title>Shop</title></head><body>{body}</body></html>'


def detail_old(it: dict[str, str]) -> str:
    """The old detail template: a label table, one row per field of ``it``."""
    rows = "".join(f"<tr><th>{k.title()}</th><td>{it[k]}</td></tr>" for k in it)
    return page_html(f'<div id="content"><h1>Item</h1><table class="info">{rows}</table></div>')


def detail_new(it: dict[str, str], *, code_label: str = "<span>Code</span>") -> str:
    """The new detail template: renamed labels for name and price, labels wrapped in spans, an
    extra wrapper; Code and Maker keep their label text (still right with the old XPaths)."""
    return page_html(
        '<main id="content"><div class="wrap"><h2>Item</h2><table class="view">'
        f"<tr><th>{code_label}</th><td>{it['code']}</td></tr>"
        f"<tr><th>Maker</th><td>{it['maker']}</td></tr>"
        f"<tr><th><span>Product name</span></th><td>{it['name']}</td></tr>"
        f"<tr><th><span>Unit price</span></th><td><b>{it['price']}</b></td></tr>"
        "</table></div></main>"
    )


def detail_page_type() -> dict[str, Any]:
    """The shop's detail page type: code, name, price and maker read next to their labels."""

    def label(text: str, **extra: Any) -> dict[str, Any]:
        return {
            "xpath": f"/descendant::th[normalize-space()='{text}'][1]/following-sibling::td[1]",
            "type": "string",
            "anchor": {"kind": "label-text", "value": text, "axis": "following-sibling::td[1]"},
            **extra,
        }

    return {
        "match": "/item\\?",
        "fields": {
            "code": label("Code", required=True),
            "name": label("Name", required=True),
            "price": label("Price", type="integer"),
            "maker": label("Maker"),
        },
    }


def _snap(folder: Path, i: int, url: str, html: str) -> dict[str, str]:
    body = html.encode("utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{i:03d}.html").write_bytes(body)
    return {
        "url": url,
        "file": f"{folder.name}/{i:03d}.html",
        "sha256": hashlib.sha256(body).hexdigest(),
    }


def write_bundle(
    bundle: Path,
    data: dict[str, Any],
    last_good: Sequence[tuple[str, str]],
    failing: Sequence[tuple[str, str]],
    *,
    failing_fields: dict[str, list[str]],
    run_id: str = "test-run",
    next_command: str | None = None,
    edit_records: Callable[[list[dict[str, Any]]], None] | None = None,
) -> Path:
    """``bundle/`` from the selector file ``data`` and ``(url, html)`` pages: the last good
    records are what ``data`` extracts from ``last_good`` (then ``edit_records``, if given)."""
    sf = parse_selector_data(data)
    bundle.mkdir(parents=True)
    (bundle / "selector.json").write_text(json.dumps(data), encoding="utf-8")
    good, bad, records = [], [], []
    for i, (url, html) in enumerate(last_good, 1):
        good.append(_snap(bundle / "last_good", i, url, html))
        records += [r.to_dict() for r in extract(sf, html, url)]
    for i, (url, html) in enumerate(failing, 1):
        bad.append(_snap(bundle / "failing", i, url, html))
    if edit_records is not None:
        edit_records(records)
    (bundle / "last_good" / "records.json").write_text(
        json.dumps(records, ensure_ascii=False), encoding="utf-8"
    )
    manifest: dict[str, Any] = {
        "format": "anchorpath.bundle.v1",
        "site": data["site"]["id"],
        "selector_version": data["version"],
        "run_id": run_id,
        "selector_file": "selector.json",
        "last_good": good,
        "last_good_records": "last_good/records.json",
        "failing": bad,
        "failing_fields": failing_fields,
    }
    if next_command is not None:
        manifest["next_command"] = next_command
    (bundle / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    return bundle
