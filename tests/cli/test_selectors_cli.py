"""``anchorpath validate`` and ``anchorpath extract`` through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from anchorpath.cli import main

SF = {
    "schema_version": 1,
    "site": {"id": "notice", "name": "Notice board"},
    "version": 1,
    "fetch": {"start_urls": ["http://127.0.0.1:9/list"]},
    "page_types": {
        "detail": {
            "match": "view",
            "fields": {
                "reg_no": {
                    "xpath": "/descendant::th[normalize-space()='등록번호'][1]/following-sibling::td[1]",
                    "type": "string",
                    "required": True,
                },
                "ingredient": {
                    "xpath": "/descendant::th[normalize-space()='성분명'][1]/following-sibling::td[1]",
                    "type": "string",
                },
                "registered": {
                    "xpath": "/descendant::th[normalize-space()='등록일자'][1]/following-sibling::td[1]",
                    "type": "date",
                },
            },
        }
    },
    "key": ["reg_no"],
}

PAGE = """<html><head><meta http-equiv="Content-Type" content="text/html; charset=euc-kr">
<title>원료의약품 등록 상세</title></head><body><table>
<tr><th>등록번호</th><td>수100-1-ND</td></tr>
<tr><th>성분명</th><td>아세트아미노펜 (Acetaminophen)</td></tr>
<tr><th>등록일자</th><td>2024.03.05</td></tr></table></body></html>"""


def test_validate_reports_three_problems(tmp_path: Path) -> None:
    data = json.loads(json.dumps(SF))
    data["version"] = "one"
    data["page_types"]["detail"]["fields"]["reg_no"]["xpath"] = "/descendant::th[["
    data["page_types"]["detail"]["fields"]["registered"]["type"] = "timestamp"
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(p)])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 3, result.output
    assert all(line.startswith(f"{p}:/") for line in lines)
    assert any("/version: 'one' is not of type 'integer'" in line for line in lines)
    assert any("XPath syntax error in field 'reg_no'" in line for line in lines)
    assert any("unknown field type 'timestamp'" in line for line in lines)


def test_validate_ok(tmp_path: Path) -> None:
    p = tmp_path / "ok.json"
    p.write_text(json.dumps(SF, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(p)])
    assert result.exit_code == 0, result.output
    assert "ok (notice v1, 1 page types, 3 fields)" in result.output


def test_extract_euc_kr_page_jsonl_and_trace(tmp_path: Path) -> None:
    sfp = tmp_path / "sf.json"
    sfp.write_text(json.dumps(SF, ensure_ascii=False), encoding="utf-8")
    page = tmp_path / "view.html"
    page.write_bytes(PAGE.encode("euc-kr"))
    url = "http://127.0.0.1:9/view?regNo=1"
    result = CliRunner().invoke(
        main, ["extract", "-s", str(sfp), "--url", url, "--trace", str(page)]
    )
    assert result.exit_code == 0, result.output
    rec = json.loads(result.output.strip().splitlines()[0])
    assert rec["_url"] == url and rec["_page_type"] == "detail"
    assert rec["reg_no"] == "수100-1-ND"
    assert rec["ingredient"] == "아세트아미노펜 (Acetaminophen)"
    assert rec["registered"] == "2024-03-05"
    assert rec["_trace"]["reg_no"]["nodes"] == ["/html/body/table/tr[1]/td"]


def test_extract_csv_and_table(tmp_path: Path) -> None:
    sfp = tmp_path / "sf.json"
    sfp.write_text(json.dumps(SF, ensure_ascii=False), encoding="utf-8")
    page = tmp_path / "view.html"
    page.write_bytes(PAGE.encode("cp949"))
    url = "http://127.0.0.1:9/view?regNo=1"
    out = CliRunner().invoke(
        main, ["extract", "-s", str(sfp), "--url", url, "--format", "csv", str(page)]
    )
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == "_url,_page_type,reg_no,ingredient,registered"
    table = CliRunner().invoke(
        main, ["extract", "-s", str(sfp), "--url", url, "--format", "table", str(page)]
    )
    assert table.exit_code == 0 and "수100-1-ND" in table.output


def test_extract_missing_page_is_one_line_error(tmp_path: Path) -> None:
    sfp = tmp_path / "sf.json"
    sfp.write_text(json.dumps(SF, ensure_ascii=False), encoding="utf-8")
    result = CliRunner().invoke(main, ["extract", "-s", str(sfp), str(tmp_path / "nope.html")])
    assert result.exit_code != 0
    assert "nope.html" in result.output


def test_extract_table_strips_control_characters(tmp_path: Path) -> None:
    sel = tmp_path / "notice.json"
    sel.write_text(json.dumps(SF), encoding="utf-8")
    page = tmp_path / "view.html"
    evil = PAGE.replace("수100-1-ND", "수100-1-ND\x1b[2J\x1b[31m").encode("cp949")
    page.write_bytes(evil)
    res = CliRunner().invoke(
        main,
        [
            "extract",
            "-s",
            str(sel),
            "--url",
            "http://127.0.0.1:9/view",
            "--format",
            "table",
            str(page),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "\x1b" not in res.output and "수100-1-ND" in res.output


def test_extract_reads_at_most_the_cap_of_a_page_argument(tmp_path: Path) -> None:
    # Issue 25: `extract /dev/zero` read until the OOM killer came.
    sf = tmp_path / "notice.json"
    sf.write_text(json.dumps(SF), encoding="utf-8")
    res = CliRunner().invoke(
        main, ["extract", "-s", str(sf), "--url", "http://x/view", "/dev/zero"]
    )
    assert res.exit_code == 1
    assert res.stderr.strip() == (
        "Error: /dev/zero: cannot read page: larger than 20971520 bytes (the cap)"
    )
