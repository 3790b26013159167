"""Version-to-version diff on the demo's history after its repair (``anchorpath demo``).

The demo runs days 1-3 (day 3: template change, drift), repairs the selector file from the
alert bundle (version 2; version 1 archived in ``.history``) and runs day 3 again. The diff
``mfds-dmf@1 mfds-dmf@2`` then names the re-authored fields, and the replay shows what each
version reads: version 2 still reads version 1's values on the old-template fixtures (the
repair is adopted only if it reproduces them, fallbacks included: no value changes or
disappears there), and new values appear on the new-template pages (the repair's fixtures and
the latest run's WARC).
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_work() -> Iterator[Path]:
    res = CliRunner().invoke(main, ["demo"], env={"COLUMNS": "120"})
    m = re.search(r"demo files: (\S+)", res.output)
    assert m, res.output[-2000:]
    work = Path(m.group(1))
    try:
        assert res.exit_code == 0, res.output[-2000:]
        assert f"review it: anchorpath diff mfds-dmf@1 mfds-dmf@2 --selectors {work}" in res.output
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)


def test_diff_between_versions_after_repair(demo_work: Path) -> None:
    sel, state = demo_work / "selectors", demo_work / "state"
    assert (sel / ".history" / "mfds-dmf" / "v1.json").is_file()
    args = ["diff", "mfds-dmf@1", "mfds-dmf@2", "--selectors", str(sel), "--state", str(state)]
    res = CliRunner().invoke(main, [*args, "--format", "json"])
    assert res.exit_code == 1, res.output
    (fd,) = json.loads(res.stdout)["files"]
    assert (fd["old"]["version"], fd["new"]["version"]) == (1, 2)
    meta = {m["setting"]: (m["old"], m["new"]) for m in fd["metadata"]}
    assert meta["provenance.method"] == ("hand", "repair")
    kinds = {s["kind"]: s["pages"] for s in fd["replayed_on"]}
    assert kinds["fixtures"] >= 26 and kinds["run"] > 0
    fields = {
        f"{p['page_type']}.{f['field']}": f
        for p in fd["page_types"]
        for f in p["fields"]
        if f["status"] != "unchanged"
    }
    applicant = fields["detail.applicant"]
    assert "xpath" in [c["setting"] for c in applicant["changes"]]
    assert {c["setting"]: c["new"] for c in applicant["changes"]}["anchor.value"] == "신청업체"
    replay = applicant["replay"]
    # The old-template fixtures still read as before: the old XPath is the last fallback.
    assert replay["disappeared"]["count"] == 0 and replay["changed"]["count"] == 0
    assert replay["appeared"]["count"] > 0  # new-template pages: only version 2 reads them
    assert "detail.reg_no" not in fields  # kept its XPath
    # No changed field reads a wrong value on the old template (a positional fallback such as
    # td[6] read the country column as list.applicant before the check covered fallbacks).
    for name, f in fields.items():
        assert f["replay"]["changed"]["count"] == 0, name
        assert f["replay"]["disappeared"]["count"] == 0, name
    # Text and Markdown render the same diff; the current file is version 2.
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 1 and "~ detail.applicant" in text.stdout
    md = CliRunner().invoke(main, [*args, "--format", "md"])
    assert "<code>detail.applicant</code>" in md.stdout
    same = CliRunner().invoke(main, ["diff", "mfds-dmf@2", "mfds-dmf", "--selectors", str(sel)])
    assert same.exit_code == 0, same.output


def test_check_passes_on_the_repaired_file(demo_work: Path) -> None:
    res = CliRunner().invoke(main, ["check", str(demo_work / "selectors")])
    assert res.exit_code == 0, res.output
