"""Selector file loading, validation, canonical writing and version history."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import anchorpath
from anchorpath._errors import SelectorFileError, SelectorValidationError
from anchorpath.selectors.load import (
    dump_selector_file,
    find_selector_file,
    list_versions,
    load_selector_file,
    parse_selector_data,
    save_selector_file,
    validate_data,
)
from anchorpath.selectors.model import FieldSpec, SelectorFile

REPO = Path(__file__).resolve().parents[2]


def with_field(sf: SelectorFile, page_type: str, spec: FieldSpec) -> SelectorFile:
    """A copy of ``sf`` with one field replaced or added (the version is bumped on save)."""
    pt = sf.page_types[page_type]
    page_types = {**sf.page_types, page_type: replace(pt, fields={**pt.fields, spec.name: spec})}
    return replace(sf, page_types=page_types)


def minimal() -> dict[str, Any]:
    return {
        "$schema": "https://anchorpath.dev/schema/selector.v1.json",
        "schema_version": 1,
        "site": {"id": "shop", "name": "Shop"},
        "version": 1,
        "parent_version": None,
        "fetch": {"start_urls": ["http://127.0.0.1:9/list"]},
        "page_types": {
            "detail": {
                "match": "/item/",
                "fields": {
                    "sku": {
                        "xpath": "/descendant::th[normalize-space()='SKU'][1]/following-sibling::td[1]",
                        "type": "string",
                        "required": True,
                    },
                    "price": {
                        "xpath": "//*[@itemprop='price']/@content",
                        "type": "number",
                        "required": False,
                    },
                },
            }
        },
        "key": ["sku"],
    }


def write(tmp_path: Path, data: dict[str, Any], name: str = "shop.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return p


def test_minimal_file_loads() -> None:
    sf = parse_selector_data(minimal())
    assert sf.site.id == "shop"
    assert sf.page_types["detail"].fields["sku"].required is True
    assert sf.key == ("sku",)


def test_three_kinds_of_problem_are_reported_precisely() -> None:
    data = minimal()
    data["version"] = 0  # schema error
    fields = data["page_types"]["detail"]["fields"]
    fields["sku"]["xpath"] = "//th[normalize-space()='SKU'"  # XPath syntax error
    fields["price"]["type"] = "money"  # unknown field type
    problems = validate_data(data, "shop.json")
    assert len(problems) == 3, problems
    joined = "\n".join(problems)
    assert "shop.json:/version: 0 is less than the minimum of 1" in joined
    assert "shop.json:/page_types/detail/fields/price/type: unknown field type 'money'" in joined
    assert (
        "shop.json:/page_types/detail/fields/sku/xpath: XPath syntax error in field 'sku'" in joined
    )


def test_unknown_property_is_rejected() -> None:
    data = minimal()
    data["page_types"]["detail"]["fields"]["sku"]["xpth"] = "x"
    problems = validate_data(data, "f.json")
    assert any("/page_types/detail/fields/sku" in p and "xpth" in p for p in problems)


def test_key_must_name_an_emitted_field() -> None:
    data = minimal()
    data["key"] = ["nope"]
    assert validate_data(data, "f.json") == [
        "f.json:/key/0: key field 'nope' is not a field of any emitted page type"
    ]


def _variants(node: Any) -> list[Any]:
    """Copies of ``node`` with one member dropped or replaced by a wrong or nearby value."""
    out: list[Any] = []
    if isinstance(node, dict):
        for key, value in node.items():
            out.append({k: v for k, v in node.items() if k != key})
            for new in (None, True, 0, 1, 1.0, "", "(", [], {}, *_variants(value)):
                out.append({**node, key: new})
        out.append({**node, "extra": 1})
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.append(node[:i] + node[i + 1 :])
            out += [[*node[:i], new, *node[i + 1 :]] for new in _variants(value)]
    return out


def test_problems_are_jsonschemas_whether_or_not_the_fast_check_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from anchorpath.selectors import load

    variants = _variants(minimal())
    fast = [validate_data(v, "f.json") for v in variants]
    monkeypatch.setattr(load, "_certainly_valid", lambda: lambda data: False)
    slow = [validate_data(v, "f.json") for v in variants]
    assert fast == slow
    assert len(variants) > 200
    assert sum(1 for p in fast if not p) > 10  # some variants are valid


def test_invalid_json_names_the_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.json"
    p.write_text('{"site": \n', encoding="utf-8")
    with pytest.raises(SelectorValidationError, match=r"bad.json: invalid JSON at line 2"):
        load_selector_file(p)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(SelectorFileError, match="not found"):
        load_selector_file(tmp_path / "nope.json")


def test_load_save_is_byte_identical(tmp_path: Path) -> None:
    sf = parse_selector_data(minimal())
    p = tmp_path / "shop.json"
    p.write_text(dump_selector_file(sf), encoding="utf-8")
    before = p.read_bytes()
    save_selector_file(load_selector_file(p), p)
    assert p.read_bytes() == before
    assert before.endswith(b"}\n")
    assert not (tmp_path / ".history").exists()


@pytest.mark.parametrize("path", sorted((REPO / "selectors").glob("*.json")), ids=lambda p: p.name)
def test_repo_selector_files_are_canonical(path: Path) -> None:
    sf = load_selector_file(path)
    assert dump_selector_file(sf) == path.read_text(encoding="utf-8")


def test_editing_one_field_changes_only_its_lines(tmp_path: Path) -> None:
    data = minimal()
    for i in range(5):
        data["page_types"]["detail"]["fields"][f"f{i}"] = {
            "xpath": f"/descendant::dt[normalize-space()='F{i}'][1]/following-sibling::dd[1]",
            "type": "string",
            "required": False,
        }
    data["created_at"] = "2026-11-01T06:00:00Z"
    data["provenance"] = {"method": "hand", "tool_version": anchorpath.__version__}
    p = tmp_path / "shop.json"
    p.write_text(dump_selector_file(parse_selector_data(data)), encoding="utf-8")
    old_lines = p.read_text(encoding="utf-8").splitlines()
    sf = load_selector_file(p)
    f2 = sf.page_types["detail"].fields["f2"]
    new_spec = FieldSpec.from_dict("f2", {**f2.to_dict(), "xpath": "//dd[@data-f='2']"})
    saved = save_selector_file(with_field(sf, "detail", new_spec), p, now="2026-11-30T06:00:00Z")
    new_lines = p.read_text(encoding="utf-8").splitlines()
    import difflib

    changed = [
        line
        for line in difflib.unified_diff(old_lines, new_lines, lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    # version, parent_version, created_at and the one XPath; nothing else.
    assert len(changed) == 8, changed
    assert any("data-f='2'" in line for line in changed)
    assert saved.version == 2 and saved.parent_version == 1
    assert list_versions(p) == [1, 2]
    assert (
        load_selector_file(p, version=1)
        .page_types["detail"]
        .fields["f2"]
        .xpath.startswith("/descendant::dt")
    )


def test_each_save_bumps_and_archives(tmp_path: Path) -> None:
    p = write(tmp_path, minimal())
    sf = load_selector_file(p)
    for n in range(2, 5):
        spec = copy.deepcopy(sf.page_types["detail"].fields["price"].to_dict())
        spec["xpath"] = f"//span[@data-price='{n}']"
        sf = save_selector_file(with_field(sf, "detail", FieldSpec.from_dict("price", spec)), p)
        assert sf.version == n and sf.parent_version == n - 1
    assert list_versions(p) == [1, 2, 3, 4]
    with pytest.raises(SelectorFileError, match="version 9 not found"):
        load_selector_file(p, version=9)


def test_unknown_site_gets_a_did_you_mean(tmp_path: Path) -> None:
    for name in ("mfds-dmf", "books"):
        (tmp_path / f"{name}.json").write_text("{}", encoding="utf-8")
    assert find_selector_file("books", tmp_path) == tmp_path / "books.json"
    with pytest.raises(SelectorFileError, match=r"site 'mfds-dfm' \(did you mean 'mfds-dmf'\?\)"):
        find_selector_file("mfds-dfm", tmp_path)
    with pytest.raises(SelectorFileError, match=r"site 'zzz' \(known: books, mfds-dmf\)"):
        find_selector_file("zzz", tmp_path)
