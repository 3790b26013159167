"""The pure verdict function: the order of the rules, and the gate only when nothing else
decided."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from anchorpath.runner.decide import Observed, decide, gone_evidence
from anchorpath.runner.drift.gate import looks_empty
from anchorpath.runner.drift.stats import RunStats
from anchorpath.runner.model import PageEntry
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


class History:
    """A baseline provider that counts how often the gate asked for it."""

    def __init__(self) -> None:
        self.asked = 0

    def history(self) -> list[RunStats]:
        self.asked += 1
        return []


def _decide(history: History | None = None, **kw: Any) -> Any:
    pages = kw.pop("pages", [PAGE])
    args: dict[str, Any] = {
        "blocked": None,
        "fatal": None,
        "pages": len(pages),
        "looks_empty": looks_empty(pages),
        "errors": [],
        "records": 0,
        "stats": RunStats(),
        "invalid_emitted": [],
    }
    return decide(Observed(**{**args, **kw}), history or History(), SF)


def test_rules_in_order() -> None:
    assert _decide(blocked="403", fatal="bad xpath").verdict == "blocked"
    assert (_decide(fatal="bad xpath").verdict, _decide(fatal="bad xpath").reason) == (
        "error",
        "bad xpath",
    )
    nothing = _decide(pages=[], errors=["x: timeout"])
    assert (nothing.verdict, nothing.reason) == ("error", "no page could be fetched: x: timeout")
    assert _decide().verdict == "empty-source"


def test_the_baseline_is_read_only_when_the_gate_runs() -> None:
    history = History()
    _decide(history, blocked="403")
    _decide(history, pages=[])
    assert history.asked == 0
    _decide(history, pages=[replace(PAGE, anchors_present={"t": False})])
    assert history.asked == 1


def test_a_gone_page_is_evidence_unless_it_is_a_listing() -> None:
    assert gone_evidence(SF, "https://s.example/item/1", 404)
    assert gone_evidence(SF, "https://s.example/item/1", 410)
    assert not gone_evidence(SF, "https://s.example/item/1", 500)
    assert not gone_evidence(SF, "https://s.example/list", 404)


def test_the_gate_decides_the_rest() -> None:
    broken = _decide(pages=[replace(PAGE, anchors_present={"t": False})])
    assert broken.drift is not None and broken.verdict == broken.drift.verdict
