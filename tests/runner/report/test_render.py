"""Run reports: three files, the HTML one self-contained."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from anchorpath.runner.changerate import assess
from anchorpath.runner.drift.check import check_drift
from anchorpath.runner.drift.stats import RunStats, field_stats
from anchorpath.runner.report.model import RunReport
from anchorpath.runner.report.render import report_json, write_reports
from anchorpath.runner.run_types import Counts
from anchorpath.runner.store.database import Event
from anchorpath.selectors.evaluate import PageResult
from anchorpath.selectors.model import PageType

PT = PageType.from_dict(
    "list",
    {
        "match": "list",
        "record_root": "//tr",
        "fields": {
            "name": {"xpath": "td[1]", "anchor": {"kind": "label-text", "value": "Name <x>"}},
            "date": {"xpath": "td[2]", "type": "date"},
        },
    },
)


def _stats(day: int, *, broken: bool = False) -> RunStats:
    rng = random.Random(day)
    recs: list[dict[str, Any]] = [
        {
            "name": f"Item {rng.randint(1, 999)}",
            "date": None if broken else f"2024-0{rng.randint(1, 9)}-1{rng.randint(0, 9)}",
        }
        for _ in range(30)
    ]
    pages = [
        PageResult(
            f"http://127.0.0.1/list?p={i}",
            "list",
            (),
            record_root_count=10,
            anchors_present={"name": True},
        )
        for i in range(3)
    ]
    s = field_stats(recs, PT, pages)
    s.run_id = f"day{day}"
    return s


def report() -> RunReport:
    base: list[RunStats] = []
    for d in range(1, 6):
        base = ([*base, _stats(d)])[-14:]
    cur = _stats(9, broken=True)
    drift = check_drift(cur, base)
    return RunReport(
        run_id="20240304T060000Z",
        site="demo <&> site",
        verdict=drift.verdict,
        selector_version=3,
        started_at="2024-03-04T06:00:00Z",
        finished_at="2024-03-04T06:01:10Z",
        counts=Counts(pages=3, records=30, new=1, changed=1),
        events=(
            Event("A-1", "new", {"name": (None, "Item 1")}),
            Event("A-2", "changed", {"name": ("<b>old</b>", "new")}),
        ),
        drift=drift,
        field_stats=cur,
        baseline_history=tuple(base),
        fetch={"requests": 4, "not_modified": 1, "retries": 0, "robots_denied": 0},
        errors=("http://127.0.0.1/x: 404", "http://127.0.0.1/y: timeout"),
        change_rate=assess([True, False, True]),
        paths={"warc": "runs/x/pages.warc.gz"},
    )


def test_the_report_reads_back_as_it_was_written(tmp_path: Path) -> None:
    r = report()
    write_reports(tmp_path, r)
    data = json.loads((tmp_path / "report.json").read_text())
    back = RunReport.from_dict(data)
    assert back.to_dict() == data
    assert back.events == r.events and back.counts == r.counts
    accepted = back.accepted(by="ana", at="T", complete=True, counts=r.counts, events=())
    assert (accepted.verdict, accepted.drift_verdict, accepted.events) == ("accepted", "drift", ())


def test_files_written(tmp_path: Path) -> None:
    s = report()
    write_reports(tmp_path / "run", s)
    for name in ("report.json", "report.md", "report.html"):
        assert (tmp_path / "run" / name).is_file()
    assert json.loads((tmp_path / "run" / "report.json").read_text())["run_id"] == s.run_id
    md = (tmp_path / "run" / "report.md").read_text()
    assert "Verdict: drift" in md and "| date |" in md and "A-2" in md


def test_report_json_parses_as_the_indented_dump_did(tmp_path: Path) -> None:
    s = report().to_dict()
    s["paths"]["run_dir"] = tmp_path  # not JSON: written with str(), as before
    s["odd"] = {"tuple": (1, "ü"), "empty": {}, "nested": [[]], 3: "int key"}
    text = report_json(s)
    assert json.loads(text) == json.loads(json.dumps(s, ensure_ascii=False, indent=2, default=str))
    lines = text.splitlines()
    # the first two levels one entry a line, deeper ones on their key's line
    assert lines[0] == "{" and lines[-1] == "}" and '  "run_id": "20240304T060000Z",' in lines
    assert '    "pages": 3,' in lines
    assert (
        '    {"key": "A-1", "kind": "new", "fields": {"name": {"old": null, "new": "Item 1"}}},'
        in lines
    )
    assert len(lines) < 120 and "ü" in text


def test_html_self_contained_and_escaped(tmp_path: Path) -> None:
    write_reports(tmp_path, report())
    page = (tmp_path / "report.html").read_text()
    # no external references of any kind: only relative links to the run's own files
    assert not re.search(r"\bsrc\s*=", page, re.I)
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs and all(":" not in h and not h.startswith("/") for h in hrefs), hrefs
    assert "http://" not in page.replace("http://127.0.0.1", "") and "https://" not in page
    assert "<script" not in page and "@import" not in page and "url(" not in page
    assert page.count("<svg") >= 4  # plots of the fields over recent runs
    assert "&lt;b&gt;old&lt;/b&gt;" in page and "<b>old</b>" not in page
    assert "demo &lt;&amp;&gt; site" in page
    assert "date" in page and "null/empty ratio" in page
    assert "timeout" in page and "not_modified" in page


def test_minimal_summary(tmp_path: Path) -> None:
    write_reports(tmp_path, RunReport("r1", "s", "ok"))
    assert "Verdict: ok" in (tmp_path / "report.html").read_text()
