"""Seed pages for session tests: three synthetic book detail pages of one template."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from anchorpath.authoring.induce import assemble_site, author_page_type
from anchorpath.authoring.reports import FieldRequest
from anchorpath.authoring.seeds import load_seed
from anchorpath.authoring.session.core import Session
from anchorpath.authoring.synth import detail_page, detail_record

FIELDS = ("title", "isbn", "publisher")


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    """``p0..p2.html``, ``ex.json`` (title, isbn, publisher) and ``series.json``."""
    ex: dict[str, Any] = {}
    series: dict[str, Any] = {}
    for i in range(3):
        rec = detail_record(i)
        (tmp_path / f"p{i}.html").write_text(detail_page(rec, seed=i), encoding="utf-8")
        ex[f"p{i}.html"] = {k: rec[k] for k in FIELDS}
        series[f"p{i}.html"] = {"series": rec["series"]}
    (tmp_path / "ex.json").write_text(json.dumps(ex), encoding="utf-8")
    (tmp_path / "series.json").write_text(json.dumps(series), encoding="utf-8")
    return tmp_path


@pytest.fixture
def seed_args(shop: Path) -> list[str]:
    """``--seed``/``--seed-url`` arguments for the three pages."""
    out = []
    for i in range(3):
        out += ["--seed", str(shop / f"p{i}.html"), "--seed-url", f"https://shop.test/b/{i}"]
    return out


@pytest.fixture
def session(shop: Path) -> Session:
    pages = [load_seed(str(shop / f"p{i}.html"), url=f"https://shop.test/b/{i}") for i in range(3)]
    ex = json.loads((shop / "ex.json").read_text())
    ex = {str(shop / k): v for k, v in ex.items()}
    fields = [FieldRequest("title"), FieldRequest("isbn", required=True), FieldRequest("publisher")]
    result = author_page_type(pages, fields, ex)
    sf = assemble_site("shop", [result])
    return Session(sf, "detail", pages, reports=result.fields, changed=list(FIELDS))
