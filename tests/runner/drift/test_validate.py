"""Record validation: schemas compiled once per process, and the fast check of valid records
gives exactly the problems jsonschema alone gives."""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from anchorpath.runner.drift import validate
from anchorpath.runner.drift.validate import RecordValidator, compiled, record_schema
from anchorpath.selectors.model import PageType

FIELDS: dict[str, dict[str, Any]] = {
    "code": {"xpath": "//b", "required": True, "pattern": r"^R\d{3}$"},
    "name": {"xpath": "//h1", "required": True},
    "note": {"xpath": "//p"},
    "count": {"xpath": "//i", "type": "integer"},
    "price": {"xpath": "//s", "type": "number", "required": True},
    "day": {"xpath": "//t", "type": "date"},
    "at": {"xpath": "//u", "type": "datetime"},
    "link": {"xpath": "//a/@href", "type": "url"},
    "tags": {"xpath": "//li", "type": "list", "required": True},
    "more": {"xpath": "//dd", "type": "list", "pattern": "^[a-z]+$"},
}
PT = PageType.from_dict("item", {"match": "/item/", "fields": FIELDS})

VALUES: list[Any] = [
    None,
    "",
    " ",
    "x",
    "R001",
    "R0012",
    "2024-03-01",
    "2024-13-01",
    "20240301",
    "2024-03-01T10:00:00Z",
    "2024-03-01 10:00",
    "http://example.org/a",
    "https://x",
    "ftp://example.org/a",
    "http://a b",
    "/relative",
    0,
    5,
    5.0,
    5.5,
    float("nan"),
    True,
    False,
    [],
    ["x"],
    ["x", ""],
    ["abc", "ABC"],
    [1],
    [None],
    {"a": 1},
]


def _reference(page_type: PageType, values: dict[str, Any]) -> list[str]:
    """What ``problems`` said before the fast check: jsonschema's errors, formatted."""
    validator = Draft202012Validator(record_schema(page_type), format_checker=validate._checker)
    out = []
    for err in sorted(validator.iter_errors(dict(values)), key=lambda e: list(e.path)):
        where = ".".join(str(p) for p in err.path) or "(record)"
        message = err.message
        if err.validator == "anyOf" and err.context:
            message = err.context[-1].message
        out.append(f"{where}: {message}")
    return out


def _records() -> Iterator[dict[str, Any]]:
    valid = {
        "code": "R001",
        "name": "n",
        "note": None,
        "count": 3,
        "price": 1.5,
        "day": "2024-03-01",
        "at": "2024-03-01T10:00:00Z",
        "link": "http://example.org/",
        "tags": ["a"],
        "more": None,
    }
    yield valid
    yield {}
    yield {**valid, "extra": object()}
    for name, value in itertools.product(FIELDS, VALUES):
        yield {**valid, name: value}
    for name in FIELDS:
        yield {k: v for k, v in valid.items() if k != name}


def test_problems_are_exactly_jsonschemas() -> None:
    v = RecordValidator({"item": PT})
    n = 0
    for record in _records():
        assert v.problems("item", record) == _reference(PT, record), record
        n += 1
    assert n > 300


def test_valid_records_skip_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    v = RecordValidator({"item": PT})
    calls: list[Any] = []
    real = Draft202012Validator.iter_errors

    def spy(self: Draft202012Validator, *args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Draft202012Validator, "iter_errors", spy)
    ok = {"code": "R001", "name": "n", "price": 2, "tags": ["a"]}
    assert v.problems("item", ok) == [] and calls == []
    assert v.problems("item", {**ok, "price": 2.0}) == [] and len(calls) == 0
    # what the check cannot vouch for goes to jsonschema, which may still accept it
    assert v.problems("item", {**ok, "count": 2.0}) == [] and len(calls) == 1
    assert v.problems("item", {**ok, "code": "X"}) == ["code: 'X' does not match '^R\\\\d{3}$'"]


def test_schemas_are_compiled_once_per_process() -> None:
    a = RecordValidator({"item": PT})
    b = RecordValidator({"item": PageType.from_dict("item", copy.deepcopy(PT.to_dict()))})
    assert a._compiled["item"] is b._compiled["item"]
    schema = record_schema(PT)
    assert compiled(schema) is compiled(copy.deepcopy(schema))


def test_an_unknown_keyword_leaves_its_values_to_jsonschema() -> None:
    validator, fast = compiled({"type": "string", "oneOf": [{"maxLength": 2}]})
    assert not fast("ab") and validator.is_valid("ab")
    _, fast = compiled({"type": "object", "properties": {"a": {"not": {"const": 1}}}})
    assert fast({"b": 1}) and not fast({"a": 2})


def test_unknown_page_type() -> None:
    assert RecordValidator({"item": PT}).problems("other", {}) == ["unknown page type 'other'"]
