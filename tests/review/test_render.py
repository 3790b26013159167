"""Renderings: terminal text, the capped Markdown of a PR comment, JSON."""

from __future__ import annotations

import json
from typing import Any

from anchorpath.review.model import (
    DiffReport,
    FieldDiff,
    FieldReplay,
    FileDiff,
    PageTypeDiff,
    RecordCount,
    ReplaySource,
    SettingChange,
    ValueDelta,
    ValueExample,
    VersionRef,
)
from anchorpath.review.render import render_json, render_markdown, render_text, show


def _field(i: int, old: Any = "a|b <c>", new: Any = "d") -> FieldDiff:
    ex = ValueExample("http://x.example/item?id=1", f"K-{i}", old, new)
    return FieldDiff(
        "item",
        f"f{i:03d}",
        "changed",
        (SettingChange("xpath", f"//th[.='{i}']", f"//th[.='{i}|x']"),),
        FieldReplay(5, 2, changed=ValueDelta(3, (ex,))),
    )


def _report(n: int) -> DiffReport:
    fd = FileDiff(
        site="shop",
        path="selectors/shop.json",
        old=VersionRef("shop@1", 1),
        new=VersionRef("shop@2", 2),
        settings=(SettingChange("fetch.max_pages", 100, 50),),
        page_types=(
            PageTypeDiff(
                "item",
                "changed",
                fields=tuple(_field(i) for i in range(n)),
                records=RecordCount(5, 4),
            ),
        ),
        metadata=(SettingChange("version", 1, 2),),
        sources=(ReplaySource("fixtures", "golden fixtures", 5),),
    )
    return DiffReport((fd,), "anchorpath diff shop@1 → shop@2")


def test_markdown_has_summary_table_and_one_details_per_field() -> None:
    md = render_markdown(_report(2))
    assert "**1 selector file of 1 compared changes what is collected.**" in md
    assert "2 fields changed, 1 setting changed; replayed on 5 pages of the golden fixtures" in md
    assert "records item 5 → 4" in md
    assert "| crawl | fetch.max_pages | <code>100</code> | <code>50</code> |" in md
    assert md.count("<details>") == md.count("</details>") == 2
    # Cell content cannot break the table or the HTML.
    assert '| K-0 | "a&#124;b &lt;c&gt;" | "d" | /item?id=1 |' in md
    assert "<code>//th[.='0&#124;x']</code>" in md


def test_markdown_is_capped_with_a_note_of_what_was_cut() -> None:
    md = render_markdown(_report(200), max_chars=5000)
    assert len(md) <= 5000
    assert md.count("<details>") == md.count("</details>") > 0
    shown = md.count("<details>")
    assert (
        f"_… cut to stay under 5,000 characters: {200 - shown} sections not shown (item.f{shown:03d}"
        in md
    )
    assert md.rstrip().endswith("for all of it._")


def test_markdown_without_difference() -> None:
    md = render_markdown(DiffReport((), "anchorpath diff: main → working tree"))
    assert (
        md
        == "### anchorpath diff: main → working tree\n\nNo difference in what the selector files collect.\n"
    )


def test_text_lines() -> None:
    text = "\n".join(line.plain for line in render_text(_report(1)))
    assert "shop  selectors/shop.json  v1 → v2  (shop@1 → shop@2)" in text
    assert "~ fetch.max_pages: 100 → 50" in text
    assert "~ item.f000  xpath · 3 changed, 0 appeared, 0 disappeared (of 5 records)" in text
    assert 'changed     K-0: "a|b <c>" → "d"  http://x.example/item?id=1' in text
    assert "… 2 more changed" in text
    assert "metadata: version: 1 → 2" in text


def test_json_round_trips() -> None:
    data = json.loads(render_json(_report(1)))
    assert data["differs"] is True
    f = data["files"][0]["page_types"][0]["fields"][0]
    assert f["replay"]["changed"]["count"] == 3
    assert f["changes"] == [
        {"setting": "xpath", "kind": "changed", "old": "//th[.='0']", "new": "//th[.='0|x']"}
    ]


def test_show_values() -> None:
    assert show(None) == "(none)"
    assert show(["a", "b"]) == '["a", "b"]'
    assert show("x" * 200, 10) == '"xxxxxxxx…'
    assert show(12.5) == "12.5"


def test_values_and_labels_from_a_pull_request_reach_no_terminal_or_markdown_raw() -> None:
    # Issue 25: JSON leaves C1 controls (8-bit CSI) and bidi overrides as they are.
    from anchorpath.review.render import _label, show

    assert show("a\u202eb\x9b2J") == '"a\\u202eb\\u009b2J"'
    assert _label("selectors/a.json") == "`selectors/a.json`"
    assert _label("selectors/a`](http://x)`.json") == ("<code>selectors/a`](http://x)`.json</code>")
