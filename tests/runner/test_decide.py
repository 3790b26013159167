"""The pure verdict function: the order of the rules, and the gate only when nothing else
decided."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from anchorpath.runner.checkpoint import PageEntry
from anchorpath.runner.decide import decide
from anchorpath.runner.drift.stats import RunStats
from anchorpath.selectors.load import parse_selector_data

SF = parse_selector_data(
    {
        "schema_version": 1,
        "policy": {"basis": "robots"},
        "site": {"id": "s", "name": "S"},
        "version": 1,
        "fetch": {"start_urls": ["https://s.example/list"]},
        "page_types": {
            "list": {
                "match": "/list",
                "record_root": "//li",
                "fields": {
                    "t": {
                        "xpath": "a",
                        "type": "string",
                        "anchor": {"kind": "label-text", "value": "T"},
                    }
                },
            }
        },
        "key": ["t"],
    },
    "s.json",
)
PAGE = PageEntry.from_dict(
    {
        "url": "https://s.example/list",
        "page_type": "list",
        "record_root_count": 0,
        "anchors_present": {"t": True},
    }
)


def _decide(**kw: Any) -> Any:
    args: dict[str, Any] = {
        "blocked": None,
        "fatal": None,
        "pages": [PAGE],
        "errors": [],
        "records": 0,
        "stats": RunStats(),
        "history": [],
        "invalid_emitted": [],
        "sf": SF,
    }
    return decide(**{**args, **kw})


def test_rules_in_order() -> None:
    assert _decide(blocked="403", fatal="bad xpath").verdict == "blocked"
    assert (_decide(fatal="bad xpath").verdict, _decide(fatal="bad xpath").reason) == (
        "error",
        "bad xpath",
    )
    nothing = _decide(pages=[], errors=["x: timeout"])
    assert (nothing.verdict, nothing.reason) == ("error", "no page could be fetched: x: timeout")
    assert _decide().verdict == "empty-source"


def test_the_gate_decides_the_rest() -> None:
    broken = _decide(pages=[replace(PAGE, anchors_present={"t": False})])
    assert broken.drift is not None and broken.verdict == broken.drift.verdict
