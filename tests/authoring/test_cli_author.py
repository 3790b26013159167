"""``anchorpath author new-site``: writes a valid selector file from files + examples."""

from __future__ import annotations

import json
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
        "--out",
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
    assert sf.key == ("isbn",) and sf.page_types["detail"].match == r"/books/"
    want = detail_record(5)
    (rec,) = extract(sf, detail_page(want, seed=5), "https://shop.test/books/5")
    assert rec.values["isbn"] == want["isbn"] and rec.values["series"] == want["series"]


def test_new_site_errors_are_one_line(tmp_path: Path) -> None:
    seeds, exf = _write(tmp_path)
    data = json.loads(exf.read_text())
    data[seeds[0]]["isbn"] = "nope-not-here"
    exf.write_text(json.dumps(data))
    args = ["author", "new-site", "Shop", "--examples", str(exf), "--yes", "--out", str(tmp_path)]
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
