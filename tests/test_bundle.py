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
    written = write_bundle(
        tmp_path / "bundle",
        SELECTOR,
        good,
        [{"applicant": "A"}],
        bad,
        failing_fields={"applicant": ["anchor label missing"]},
        score=12.0,
        run_id="r1",
    )
    manifest = json.loads((tmp_path / "bundle" / "bundle.json").read_text(encoding="utf-8"))
    assert manifest["format"] == BUNDLE_FORMAT
    assert written.next_command == manifest["next_command"]
    assert written.next_command == repair_command(written.site, tmp_path / "bundle")
    assert (written.site, written.created_at) == (manifest["site"], manifest["created_at"])
    b = read_bundle(tmp_path / "bundle" / "bundle.json")
    assert b.site == written.site and b.run_id == "r1"
    assert [s.body for s in b.last_good] == [good[0][1]] and [s.url for s in b.failing] == [
        bad[0][0]
    ]
    assert b.last_good_records == ({"applicant": "A"},)
    assert b.failing_fields == {"applicant": ("anchor label missing",)}


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


def test_prompt_md_is_a_ready_reauthoring_prompt(tmp_path: Path) -> None:
    from anchorpath.demo.pages import detail_path

    sf = json.loads(SELECTOR.read_text(encoding="utf-8"))
    detail = sf["page_types"]["detail"]["fields"]["applicant"]
    url = "http://127.0.0.1:8765" + detail_path("수2383-6-ND")
    page = (
        "<html><head><title>프레드니솔론</title></head><body><nav><a href='/'>홈</a></nav>"
        "<div id='content'><h2>프레드니솔론 (Prednisolone)</h2><table>"
        "<tr><th>신청업체</th><td>청림제약(주)</td></tr>"
        "<tr><th>등록번호</th><td>수2383-6-ND</td></tr></table></div></body></html>"
    )
    write_bundle(
        tmp_path / "bundle",
        SELECTOR,
        [(url.replace("8765", "9999"), b"<html>old</html>")],
        [
            {
                "_url": url.replace("8765", "9999"),
                "_page_type": "detail",
                "applicant": "청림제약(주)",
            }
        ],
        [(url, page.encode("utf-8"))],
        failing_fields={"detail.applicant": ["anchor label missing on 1/1 pages"]},
    )
    prompt = (tmp_path / "bundle" / "prompt.md").read_text(encoding="utf-8")
    assert "- **applicant** (page type `detail`, string)" in prompt
    assert f"XPath that stopped working: `{detail['xpath']}`" in prompt
    assert 'last good values: "청림제약(주)"' in prompt
    assert "drift evidence: anchor label missing on 1/1 pages" in prompt
    # the failing page as pruned Markdown (navigation gone), paired with its last good record
    # although the site moved to another port
    assert "| 신청업체 | 청림제약(주) |" in prompt and "홈" not in prompt
    assert 'Last good values on this page:\n- applicant: "청림제약(주)"' in prompt
    assert "What the old XPaths give on it now: applicant: nothing." in prompt
    assert '"applicant": "…"' in prompt and "--llm" in prompt
