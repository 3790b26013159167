"""Selector XPaths stay inside XPath 1.0's core: refused by ``validate``, one line each;
anything that still fails at evaluation is one ``SelectorEvaluationError``, not a traceback."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from anchorpath._errors import SelectorEvaluationError
from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import parse_selector_data, validate_data
from anchorpath.selectors.xpath_core import core_problem

SF: dict[str, Any] = {
    "schema_version": 1,
    "site": {"id": "shop", "name": "Shop"},
    "version": 1,
    "parent_version": None,
    "fetch": {"start_urls": ["http://127.0.0.1:9/item/1"]},
    "page_types": {
        "detail": {
            "match": "/item/",
            "fields": {"sku": {"xpath": "//td[@id='sku']", "type": "string", "required": True}},
        }
    },
    "key": ["sku"],
}
PAGE = b"<html><body><table><tr><td id='sku'>A-1</td></tr></table></body></html>"


def with_xpath(xpath: str) -> dict[str, Any]:
    data = copy.deepcopy(SF)
    data["page_types"]["detail"]["fields"]["sku"]["xpath"] = xpath
    return data


@pytest.mark.parametrize(
    ("xpath", "says"),
    [
        ("document('/etc/passwd')//td", "document() is not an XPath 1.0 core function"),
        ("unparsed-text('/etc/passwd')", "unparsed-text() is not an XPath 1.0 core function"),
        ("str:tokenize(//td, ' ')", "str:tokenize() is an extension (str: namespace)"),
        ("//td[re:test(., '^A')]", "re:test() is an extension (re: namespace)"),
        ("//td[@id=$which]", "variable '$which' is not allowed"),
        ("//h:td", "namespace prefix 'h' is not defined"),
        ("//td[lower-case(.)='a-1']", "lower-case() is not an XPath 1.0 core function"),
    ],
)
def test_validate_refuses_anything_outside_the_core(xpath: str, says: str) -> None:
    problems = validate_data(with_xpath(xpath), "shop.json")
    assert len(problems) == 1, problems
    assert problems[0].startswith("shop.json:/page_types/detail/fields/sku/xpath: field 'sku': ")
    assert says in problems[0]
    assert "\n" not in problems[0]


@pytest.mark.parametrize(
    "xpath",
    [
        "/descendant::th[normalize-space()='SKU'][1]/following-sibling::td[1]",
        "//a[@class and div]/@href",  # an element named div, "and" an operator
        "count(//a) div 2",
        "//*[local-name()='x' and contains(translate(., 'AB', 'ab'), 'a')]/text()",
        "//td[@title='$not-a-variable' or starts-with(., 'str:x(')]",
        "//processing-instruction('x') | //comment() | //node()",
        "//div/and",  # an element named "and"
        "ancestor-or-self::div[1]/@data-id",
    ],
)
def test_core_xpaths_pass(xpath: str) -> None:
    assert core_problem(xpath) is None
    assert validate_data(with_xpath(xpath), "shop.json") == []


def test_shipped_selector_files_stay_in_the_core() -> None:
    repo = Path(__file__).resolve().parents[2]
    files = list((repo / "selectors").glob("*.json"))
    files += list((repo / "src/anchorpath/demo").glob("*.json"))
    assert files
    for path in files:
        assert validate_data(json.loads(path.read_text(encoding="utf-8")), str(path)) == []


def test_evaluation_failure_is_one_error_naming_the_field() -> None:
    sf = parse_selector_data(with_xpath("//td[count('x')]"))  # compiles, fails on evaluation
    with pytest.raises(SelectorEvaluationError) as info:
        extract(sf, PAGE, "http://127.0.0.1:9/item/1")
    assert "cannot evaluate XPath of field 'sku'" in str(info.value)


def test_validate_cli_prints_one_line_per_problem(tmp_path: Path) -> None:
    path = tmp_path / "shop.json"
    path.write_text(json.dumps(with_xpath("document('x')//td")), encoding="utf-8")
    res = CliRunner().invoke(main, ["validate", str(path)])
    assert res.exit_code == 1
    assert res.output.strip().count("\n") == 0
    assert res.output.startswith(f"{path}:/page_types/detail/fields/sku/xpath: ")


def test_extract_cli_evaluation_failure_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "shop.json"
    path.write_text(json.dumps(with_xpath("//td[count('x')]")), encoding="utf-8")
    page = tmp_path / "p.html"
    page.write_bytes(PAGE)
    res = CliRunner().invoke(
        main, ["extract", "-s", str(path), "--url", "http://127.0.0.1:9/item/1", str(page)]
    )
    assert res.exit_code == 1
    assert isinstance(res.exception, SystemExit)  # a click error, not a traceback
    assert res.output.strip().count("\n") == 0, res.output
    assert "cannot evaluate XPath of field 'sku'" in res.output
