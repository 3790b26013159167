"""``anchorpath author new-site``: writes a valid selector file from files + examples."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from anchorpath.authoring.synth import detail_page, detail_record
from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import load_selector_file


def _write(tmp: Path) -> tuple[list[str], Path]:
    seeds = []
    ex = {}
    for i in range(3):
        rec = detail_record(i)
        p = tmp / f"p{i}.html"
        p.write_text(detail_page(rec, seed=i), encoding="utf-8")
        seeds.append(str(p))
        ex[str(p)] = {k: rec[k] for k in ("title", "isbn", "publisher", "series", "url")}
    exf = tmp / "examples.json"
    exf.write_text(json.dumps(ex), encoding="utf-8")
    return seeds, exf


def test_new_site_writes_file(tmp_path: Path) -> None:
    seeds, exf = _write(tmp_path)
    args = [
        "author",
        "new-site",
        "Shop",
        "--examples",
        str(exf),
        "--yes",
        "--selectors",
        str(tmp_path / "sel"),
        "--required",
        "isbn",
        "--type",
        "url=url",
    ]
    for i, s in enumerate(seeds):
        args += ["--seed", s, "--seed-url", f"https://shop.test/books/{i}"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    sf = load_selector_file(tmp_path / "sel" / "shop.json")
    assert sf.key == ("isbn",)
    match = sf.page_types["detail"].match
    assert re.search(match, "https://shop.test/books/5") and not re.search(
        match, "https://shop.test/"
    )
    want = detail_record(5)
    (rec,) = extract(sf, detail_page(want, seed=5), "https://shop.test/books/5")
    assert rec.values["isbn"] == want["isbn"] and rec.values["series"] == want["series"]
    # --yes records conservative policy defaults (a run refuses a file without a basis)
    # and prints them
    assert sf.policy is not None and sf.policy.basis == "robots"
    assert sf.policy.retention_days == 365 and sf.policy.store_raw
    assert "policy (conservative defaults" in res.stderr and "basis: robots" in res.stderr


def test_new_site_errors_are_one_line(tmp_path: Path) -> None:
    seeds, exf = _write(tmp_path)
    data = json.loads(exf.read_text())
    data[seeds[0]]["isbn"] = "nope-not-here"
    exf.write_text(json.dumps(data))
    args = [
        "author",
        "new-site",
        "Shop",
        "--examples",
        str(exf),
        "--yes",
        "--selectors",
        str(tmp_path),
    ]
    for s in seeds:
        args += ["--seed", s]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 1
    assert "field 'isbn'" in res.output and "p0.html" in res.output
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    res = CliRunner().invoke(
        main, ["author", "new-site", "x", "--seed", seeds[0], "--examples", str(bad), "--yes"]
    )
    assert res.exit_code == 1 and "invalid JSON at line 1" in res.output
    res = CliRunner().invoke(main, ["author", "new-site", "x", "--examples", str(bad)])
    assert res.exit_code == 2


def _dmf_detail(i: int) -> bytes:
    rows = [
        ("등록번호", f"수{1400 + i}-1-ND"),
        ("성분명", f"아세트아미노펜 {i}"),
        ("신청인", "(주)한빛제약"),
        ("등록일자", f"2024.03.{10 + i:02d}"),
        ("비고", f"비고 내용 {i} - 변경 없음"),
    ]
    body = "".join(f"<tr><th scope='row'>{k}</th><td>{v}</td></tr>" for k, v in rows)
    html = (
        f"<html><head><meta http-equiv='Content-Type' content='text/html; charset=euc-kr'>"
        f"<title>원료의약품 등록 공고</title></head><body><div id='wrap'><h2>상세</h2>"
        f"<table class='view'>{body}</table><a href='list.do'>목록</a></div></body></html>"
    )
    return html.encode("euc-kr")


def test_new_site_euc_kr_detail_pages_with_typed_date(tmp_path: Path) -> None:
    seeds, ex = [], {}
    for i in range(3):
        p = tmp_path / f"view{i}.html"
        p.write_bytes(_dmf_detail(i))
        seeds += ["--seed", str(p), "--seed-url", f"http://127.0.0.1:8765/dmf/view.do?seq={i}"]
        ex[str(p)] = {
            "reg_no": f"수{1400 + i}-1-ND",
            "ingredient": f"아세트아미노펜 {i}",
            "registered_on": f"2024-03-{10 + i:02d}",
            "remarks": f"비고 내용 {i} - 변경 없음",
        }
    exf = tmp_path / "ex.json"
    exf.write_text(json.dumps(ex, ensure_ascii=False), encoding="utf-8")
    res = CliRunner().invoke(
        main,
        [
            "author",
            "new-site",
            "mfds-dmf",
            *seeds,
            "--examples",
            str(exf),
            "--type",
            "registered_on=date",
            "--required",
            "reg_no",
            "--yes",
            "--selectors",
            str(tmp_path / "sel"),
        ],
    )
    assert res.exit_code == 0, res.output
    sf = load_selector_file(tmp_path / "sel" / "mfds-dmf.json")
    match = sf.page_types["detail"].match
    assert re.search(match, "http://127.0.0.1:8765/dmf/view.do?page=2&seq=77")
    assert not re.search(match, "http://127.0.0.1:8765/dmf/list.do?page=2")
    spec = sf.page_types["detail"].fields["ingredient"]
    assert spec.anchor is not None and spec.anchor.value == "성분명"
    (rec,) = extract(sf, _dmf_detail(9), "http://127.0.0.1:8765/dmf/view.do?seq=9")
    assert rec.values == {
        "reg_no": "수1409-1-ND",
        "ingredient": "아세트아미노펜 9",
        "registered_on": "2024-03-19",
        "remarks": "비고 내용 9 - 변경 없음",
    }


def test_new_site_wait_for_usage_and_bad_selector_are_one_line(tmp_path: Path) -> None:
    seeds, exf = _write(tmp_path)
    base = [
        "author",
        "new-site",
        "Shop",
        "--examples",
        str(exf),
        "--yes",
        "--selectors",
        str(tmp_path),
    ]
    for s in seeds:
        base += ["--seed", s]
    res = CliRunner().invoke(main, [*base, "--wait-for", "#late", "--render", "http"])
    assert res.exit_code == 2 and "--wait-for" in res.output
    res = CliRunner().invoke(main, [*base, "--wait-for", "div[[oops"])
    assert res.exit_code == 1
    assert "render.wait_for: 'div[[oops' is not a CSS selector" in res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1


def test_new_site_yes_writes_golden_fixtures_that_check_verifies(tmp_path: Path) -> None:
    seeds, exf = _write(tmp_path)
    sel = tmp_path / "sel"
    args = ["author", "new-site", "Shop", "--examples", str(exf), "--yes", "--selectors", str(sel)]
    for i, s in enumerate(seeds):
        args += ["--seed", s, "--seed-url", f"https://shop.test/books/{i}"]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    sf = load_selector_file(sel / "shop.json")
    assert len(sf.fixtures) == 3 and all(fx.records for fx in sf.fixtures)
    for fx in sf.fixtures:
        assert (sel / fx.page).is_file() and (sel / str(fx.records)).is_file()
    res = CliRunner().invoke(main, ["check", str(sel / "shop.json")])
    assert res.exit_code == 0, res.output
    assert "3 fixture pages, 3 records reproduced" in res.output
