"""check: validation plus golden fixtures replayed and compared field by field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from anchorpath.review.check import check_file, selector_files

REPO = Path(__file__).resolve().parents[2]


def _site(
    tmp_path: Path, shop: Any, rows: list[tuple[str, str]], want: list[dict[str, Any]]
) -> Path:
    sel = tmp_path / "selectors"
    (sel / "fixtures").mkdir(parents=True)
    (sel / "fixtures" / "list.html").write_bytes(shop.list_page(rows))
    (sel / "fixtures" / "list.records.json").write_text(json.dumps(want), encoding="utf-8")
    data = shop.data(
        fixtures=[
            {
                "page": "fixtures/list.html",
                "url": f"{shop.ORIGIN}/list",
                "records": "fixtures/list.records.json",
            }
        ]
    )
    path = sel / "shop.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _rows(*codes: str) -> list[dict[str, Any]]:
    return [{"_url": "u", "_page_type": "list", "code": c, "name": f"n{c}"} for c in codes]


def test_passes_when_records_reproduce(tmp_path: Path, shop: Any) -> None:
    path = _site(tmp_path, shop, [("A", "nA"), ("B", "nB")], _rows("A", "B"))
    result = check_file(path)
    assert result.ok and (result.fixtures, result.records) == (1, 2)


def test_value_mismatch_names_page_type_field_record(tmp_path: Path, shop: Any) -> None:
    path = _site(tmp_path, shop, [("A", "nA"), ("B", "other")], _rows("A", "B"))
    (p,) = check_file(path).problems
    assert (p.kind, p.where, p.page, p.record) == ("value", "list.name", "fixtures/list.html", "B")
    assert (p.expected, p.got, p.message) == ("nB", "other", 'expected "nB", got "other"')


def test_record_count_mismatch_pairs_the_rest_by_key(tmp_path: Path, shop: Any) -> None:
    path = _site(tmp_path, shop, [("B", "nB")], _rows("A", "B"))
    problems = check_file(path).problems
    assert [(p.kind, p.message) for p in problems] == [
        ("records", "2 records expected, 1 extracted")
    ]


def test_unreadable_expected_records_and_unmatched_url(tmp_path: Path, shop: Any) -> None:
    path = _site(tmp_path, shop, [("A", "nA")], _rows("A"))
    (path.parent / "fixtures" / "list.records.json").write_text("{", encoding="utf-8")
    (p,) = check_file(path).problems
    assert p.kind == "fixture" and p.message.startswith(
        "expected records fixtures/list.records.json cannot be read"
    )
    data = json.loads(path.read_text(encoding="utf-8"))
    data["fixtures"][0]["url"] = f"{shop.ORIGIN}/nowhere"
    path.write_text(json.dumps(data), encoding="utf-8")
    (p,) = check_file(path).problems
    assert p.message == f"no page type matches the fixture URL {shop.ORIGIN}/nowhere"


def test_unreadable_file_is_one_problem(tmp_path: Path) -> None:
    (p,) = check_file(tmp_path / "missing.json").problems
    assert (p.kind, p.message) == (
        "invalid",
        f"{tmp_path / 'missing.json'}: selector file not found",
    )


def test_selector_files_in_a_folder_are_its_json_files(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}", encoding="utf-8")
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "fixtures" / "x.records.json").write_text("[]", encoding="utf-8")
    assert selector_files([tmp_path, tmp_path / "a.json"]) == [tmp_path / "a.json"]


def test_a_file_without_fixtures_verifies_nothing_and_fails_unless_allowed(
    tmp_path: Path,
) -> None:
    from click.testing import CliRunner

    from anchorpath.cli import main

    data = json.loads((REPO / "selectors" / "mfds-dmf.json").read_text(encoding="utf-8"))
    data["fixtures"] = []
    path = tmp_path / "mfds-dmf.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    (p,) = check_file(path).problems
    assert p.kind == "fixture" and "nothing was verified" in p.message
    assert check_file(path, allow_empty=True).ok
    res = CliRunner().invoke(main, ["check", str(path)])
    assert res.exit_code == 1 and "no golden fixture with expected records" in res.output
    res = CliRunner().invoke(main, ["check", str(path), "--allow-empty"])
    assert res.exit_code == 0 and "0 fixture pages" in res.output
