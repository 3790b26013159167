"""The conservative check compiled from a JSON Schema: it never passes what jsonschema rejects."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, FormatChecker

from anchorpath.selectors.load import load_schema
from anchorpath.selectors.schema_check import compile_check

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "src" / "anchorpath" / "demo" / "mfds-dmf.json"
VALIDATOR = Draft202012Validator(load_schema(), format_checker=FormatChecker())
CHECK = compile_check(load_schema(), VALIDATOR.format_checker)


def valid(instance: Any) -> bool:
    return not any(True for _ in VALIDATOR.iter_errors(instance))


def everything() -> dict[str, Any]:
    """The demo file plus every optional part of the schema the demo does not use."""
    data: dict[str, Any] = json.loads(DEMO.read_text(encoding="utf-8"))
    data["provenance"].update(
        model=None,
        endpoint="127.0.0.1",
        prompt_hash=None,
        seeds=[{"url": "http://a.example/1", "sha256": "0" * 64, "snapshot": "s/1.html"}],
    )
    data["fetch"].update(
        drop_params=["sid"],
        politeness={"min_delay": 1, "delay_factor": 0.5, "max_delay": 30, "max_attempts": 2},
    )
    data["fetch"]["pagination"]["max_pages"] = 3
    data["baseline"] = {"runs": []}
    fields = next(iter(data["page_types"].values()))["fields"]
    spec = next(iter(fields.values()))
    spec.update(fallbacks=["//p", "//div"], robustness=0.75, warnings=["positional"])
    spec["normalize"] = {
        "whitespace": False,
        "strip_prefix": "^No\\.",
        "strip_suffix": "\\s+$",
        "capture": "(\\d+)",
        "number_locale": "ko",
        "join": " ",
    }
    return data


def small() -> dict[str, Any]:
    return {
        "schema_version": 1,
        "site": {"id": "shop", "name": "Shop"},
        "version": 1,
        "parent_version": None,
        "fetch": {"start_urls": ["http://127.0.0.1:9/list"], "max_depth": 0},
        "page_types": {
            "detail": {
                "match": "/item/",
                "emit": True,
                "fields": {
                    "sku": {"xpath": "//td", "type": "string", "required": True},
                    "price": {"xpath": "//b", "type": "number", "robustness": 1},
                },
            }
        },
        "key": ["sku"],
    }


def documents() -> list[dict[str, Any]]:
    return [
        json.loads(DEMO.read_text(encoding="utf-8")),
        json.loads((REPO / "selectors" / "mfds-dmf.json").read_text(encoding="utf-8")),
        small(),
        everything(),
    ]


@pytest.mark.parametrize("index", range(4))
def test_valid_files_take_the_fast_path(index: int) -> None:
    doc = documents()[index]
    assert valid(doc)
    assert CHECK(doc)


#: Replacement values: wrong types, bool-vs-int, 1.0 for an integer, empty values, a bad regex.
REPLACEMENTS: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    0.5,
    2,
    float("nan"),
    "",
    "x",
    "(",
    "string",
    "http",
    [],
    ["x"],
    [1],
    {},
    {"x": 1},
]


def _mutations(node: Any) -> Iterator[tuple[Any, Any]]:
    """Every one-step mutation of ``node`` as ``(apply, undo)`` pairs of callables, made in
    place: drop each key or item, add an unknown key, replace each value."""
    if isinstance(node, dict):
        for key in list(node):
            value = node[key]

            def drop(k: str = key) -> None:
                del node[k]

            def put(k: str = key, v: Any = value) -> None:
                node[k] = v

            yield drop, put
            for new in [*REPLACEMENTS, *_near(value)]:
                if type(new) is type(value) and new == value:
                    continue

                def swap(k: str = key, v: Any = new) -> None:
                    node[k] = v

                yield swap, put
            yield from _mutations(value)

        def add() -> None:
            node["zz_unknown"] = "x"

        def remove() -> None:
            del node["zz_unknown"]

        yield add, remove
    elif isinstance(node, list):
        for i, value in enumerate(node):

            def drop_item(i: int = i) -> None:
                del node[i]

            def insert(i: int = i, v: Any = value) -> None:
                node.insert(i, v)

            yield drop_item, insert
            yield from _mutations(value)


def _near(value: Any) -> list[Any]:
    """Values next to ``value`` that a schema may still tell apart."""
    if isinstance(value, bool):
        return [int(value), not value]
    if isinstance(value, int):
        return [float(value), value - 1, value + 1, str(value), bool(value)]
    if isinstance(value, str):
        return [value.upper(), value + " ", value[:-1], [value]]
    return []


def _run(doc: dict[str, Any]) -> tuple[int, int]:
    """Apply every mutation; assert the check never passes one jsonschema rejects."""
    tried = passed = 0
    for apply, undo in list(_mutations(doc)):
        apply()
        try:
            tried += 1
            if CHECK(doc):
                passed += 1
                assert valid(doc), json.dumps(doc)[:2000]
        finally:
            undo()
    return tried, passed


def test_no_mutation_of_a_small_file_passes_the_check_wrongly() -> None:
    doc = documents()[2]
    before = copy.deepcopy(doc)
    tried, passed = _run(doc)
    assert doc == before
    assert tried > 300
    assert 0 < passed < tried


@pytest.mark.slow
def test_no_mutation_of_a_full_file_passes_the_check_wrongly() -> None:
    doc = everything()
    tried, passed = _run(doc)
    assert tried > 5000
    assert 0 < passed < tried


def test_random_double_mutations_never_pass_wrongly() -> None:
    rng = random.Random(15)
    doc = everything()
    steps = list(_mutations(doc))
    for _ in range(300):
        (a1, u1), (a2, u2) = rng.sample(steps, 2)
        a1()
        try:
            a2()
        except (KeyError, IndexError):
            u1()
            continue
        if CHECK(doc):
            assert valid(doc)
        u2()
        u1()


def schema(**keywords: Any) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **keywords}


def agree(sch: dict[str, Any], instance: Any) -> bool:
    """The check's answer, asserted never to pass what jsonschema rejects."""
    check = compile_check(sch, FormatChecker())
    ok = check(instance)
    if ok:
        assert not list(
            Draft202012Validator(sch, format_checker=FormatChecker()).iter_errors(instance)
        )
    return ok


def test_integers_are_exact() -> None:
    sch = schema(type="integer", minimum=1)
    assert agree(sch, 1)
    assert not agree(sch, True)  # jsonschema: a bool is not an integer
    assert not agree(sch, 1.0)  # jsonschema takes it; the slow path decides
    assert not agree(sch, 0)
    assert not agree(schema(type="number"), False)
    assert agree(schema(type="number", maximum=1), 0.5)
    assert not agree(schema(minimum=0), float("nan"))  # jsonschema takes NaN; slow path
    assert agree(schema(minimum=0), "text")  # numeric keywords skip other types


def test_enum_and_const_compare_type_and_value() -> None:
    assert agree(schema(const=1), 1)
    assert not agree(schema(const=1), True)
    assert not agree(schema(const=1), 1.0)
    assert not agree(schema(enum=[0, "a", None]), False)
    assert agree(schema(enum=[0, "a", None]), None)
    assert not agree(schema(enum=[[1]]), [1])  # members other than scalars: slow path


def test_unknown_keywords_send_their_subschema_to_jsonschema() -> None:
    sch = schema(
        type="object",
        properties={"a": {"oneOf": [{"type": "string"}]}, "b": {"type": "string"}},
    )
    assert agree(sch, {"b": "x"})
    assert not agree(sch, {"a": "x"})  # valid, but oneOf is not known here
    assert not agree(schema(prefixItems=[{}], items=False), [1])
    assert not agree(schema(properties={"a": {}}, patternProperties={"^x": {}}), {"a": 1})


def test_references_cycles_and_formats() -> None:
    sch = schema(
        type="object",
        additionalProperties=False,
        properties={"name": {"type": "string", "format": "regex"}, "child": {"$ref": "#"}},
    )
    assert agree(sch, {"name": "a+", "child": {"child": {"name": "b"}}})
    assert not agree(sch, {"child": {"name": "("}})  # not a regex, found deep down
    assert not agree(sch, {"child": {"other": 1}})
    assert not agree(schema(items={"$ref": "#/$defs/missing"}), [1])
    assert not agree(schema(items={"$ref": "https://elsewhere.example/s.json"}), [1])


def test_sizes_and_required() -> None:
    sch = schema(
        type="object",
        required=["a"],
        minProperties=1,
        maxProperties=2,
        properties={
            "a": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"maxLength": 2}}
        },
    )
    assert agree(sch, {"a": ["xy"]})
    assert not agree(sch, {"a": ["xyz"]})
    assert not agree(sch, {"a": []})
    assert not agree(sch, {"b": 1})
    assert not agree(sch, {"a": ["x"], "b": 1, "c": 2})
