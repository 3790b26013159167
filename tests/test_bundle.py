"""The drift-bundle format: what the runner writes is what authoring reads back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from anchorpath._errors import BundleError
from anchorpath.bundle import BUNDLE_FORMAT, read_bundle, repair_command, write_bundle

SELECTOR = Path(__file__).resolve().parents[1] / "src" / "anchorpath" / "demo" / "mfds-dmf.json"


def test_written_bundle_reads_back(tmp_path: Path) -> None:
    good = [("http://127.0.0.1/list?p=1", "<html>좋은</html>".encode("euc-kr"))]
    bad = [("http://127.0.0.1/list?p=1", b"<html>new</html>")]
    manifest = write_bundle(
        tmp_path / "bundle",
        SELECTOR,
        good,
        [{"applicant": "A"}],
        bad,
        failing_fields={"applicant": ["anchor label missing"]},
        score=12.0,
        run_id="r1",
    )
    assert manifest["format"] == BUNDLE_FORMAT
    assert manifest["next_command"] == repair_command(manifest["site"], tmp_path / "bundle")
    b = read_bundle(tmp_path / "bundle" / "bundle.json")
    assert b.site == manifest["site"] and b.run_id == "r1"
    assert [s.body for s in b.last_good] == [good[0][1]] and [s.url for s in b.failing] == [
        bad[0][0]
    ]
    assert b.last_good_records == ({"applicant": "A"},)
    assert b.failing_fields == {"applicant": ["anchor label missing"]}


def test_unknown_format_is_refused_in_one_line(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    write_bundle(bundle, SELECTOR, [], [], [], failing_fields={})
    manifest = json.loads((bundle / "bundle.json").read_text())
    (bundle / "bundle.json").write_text(json.dumps({**manifest, "format": "other.v9"}))
    with pytest.raises(BundleError, match=r"bundle\.json: unsupported bundle format 'other\.v9'"):
        read_bundle(bundle)
    shutil.rmtree(bundle)
    with pytest.raises(BundleError, match=r"bundle\.json: cannot read bundle file"):
        read_bundle(bundle)
