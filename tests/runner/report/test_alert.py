"""The alert bundle of a drifted run."""

from __future__ import annotations

import json
from pathlib import Path

from anchorpath.runner.drift.check import DriftResult
from anchorpath.runner.report.alert import write_alert_bundle


def test_bundle_contents(tmp_path: Path) -> None:
    sel = tmp_path / "selectors" / "demo.json"
    sel.parent.mkdir()
    sel.write_text(json.dumps({"site": {"id": "demo", "name": "Demo"}, "version": 4}))
    drift = DriftResult(
        "drift",
        12.0,
        fields={"applicant": ["applicant: anchor label missing on 3/3 pages"]},
        field_scores={"applicant": 12.0, "title": 0.1},
    )
    good = [("http://127.0.0.1/list?p=1", "<html>좋은</html>".encode("euc-kr"))]
    bad = [
        ("http://127.0.0.1/list?p=1", b"<html>new</html>"),
        ("http://127.0.0.1/list?p=2", b"<html>new 2</html>"),
    ]
    run_dir = tmp_path / "runs" / "r7"
    bundle = write_alert_bundle(run_dir, sel, good, [{"applicant": "A"}], bad, drift, run_id="r7")
    assert bundle == run_dir / "bundle"
    alert = json.loads((run_dir / "alert.json").read_text())
    assert alert["site"] == "demo" and alert["fields"] == drift.fields
    assert alert["next_command"] == f"anchorpath author repair demo --bundle {bundle}"
    manifest = json.loads((bundle / "bundle.json").read_text())
    assert manifest["selector_version"] == 4 and manifest["next_command"] == alert["next_command"]
    assert (bundle / "selector.json").read_bytes() == sel.read_bytes()
    assert (bundle / "last_good" / "001.html").read_bytes() == good[0][1]
    assert json.loads((bundle / "last_good" / "records.json").read_text()) == [{"applicant": "A"}]
    assert [e["url"] for e in manifest["failing"]] == [u for u, _ in bad]
    assert (bundle / manifest["failing"][1]["file"]).read_bytes() == b"<html>new 2</html>"
    ff = json.loads((bundle / "failing_fields.json").read_text())
    assert "applicant" in ff["fields"] and ff["drift"]["verdict"] == "drift"
    assert "anchorpath author repair demo" in (bundle / "README.md").read_text()
    # rewriting (e.g. a resumed run) replaces the bundle
    write_alert_bundle(run_dir, sel, good, [], bad[:1], drift)
    assert not (bundle / "failing" / "002.html").exists()


def test_unreadable_selector_uses_file_stem(tmp_path: Path) -> None:
    sel = tmp_path / "odd-site.json"
    sel.write_text("not json")
    b = write_alert_bundle(tmp_path / "run", sel, [], [], [], DriftResult("drift", 3.0))
    assert "repair odd-site --bundle" in json.loads((b / "bundle.json").read_text())["next_command"]
