"""``anchorpath author repair``: re-author broken fields from a drift bundle, adopt only if the
last good records are reproduced.

Synthetic bundles (written here, old template → new template) cover detail pages, list pages
whose key column broke, refusal, the version guard and the CLI; the demo test drives the real
pipeline: day 1 → 2 ok, day 3 (template change) drift → repair → day 3 again ok, no events.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from anchorpath.authoring.repair.pipeline import plan_repair, repair_from_bundle, reverify
from anchorpath.bundle import read_bundle
from anchorpath.cli import main
from anchorpath.demo import DemoServer
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import load_selector_file

from .conftest import detail_new, detail_old, detail_page_type, page_html, write_bundle

SITE = "shop"
ORIGIN_OLD = "http://127.0.0.1:1111"
ORIGIN_NEW = "http://127.0.0.1:2222"  # a different port: URL values must still compare equal

ITEMS = [
    {"code": "A-100", "name": "Alpha widget", "price": "12", "maker": "Acme"},
    {"code": "B-201", "name": "Beta gadget", "price": "30", "maker": "Borg"},
    {"code": "C-302", "name": "Gamma gizmo", "price": "7", "maker": "Cyberdyne"},
    {"code": "D-403", "name": "Delta doohickey", "price": "55", "maker": "Dunder"},
]


def list_old(items: list[dict[str, str]]) -> str:
    rows = "".join(
        f'<tr><td><a href="/item?id={it["code"]}">{it["code"]}</a></td><td>{it["name"]}</td></tr>'
        for it in items
    )
    return page_html(
        '<table data-board="items"><thead><tr><th>Code</th><th>Name</th></tr></thead>'
        f"<tbody>{rows}</tbody></table>"
    )


def list_new(items: list[dict[str, str]]) -> str:
    # A number column in front: the old positional XPaths (key included) now read wrong cells.
    rows = "".join(
        f'<tr><td class="n">{i + 1}</td><td class="c"><a href="/item?id={it["code"]}">'
        f'{it["code"]}</a></td><td class="t">{it["name"]}</td></tr>'
        for i, it in enumerate(items)
    )
    return page_html(
        '<div class="board"><table data-board="items"><thead><tr><th>No</th><th>Item code</th>'
        f"<th>Title</th></tr></thead><tbody>{rows}</tbody></table></div>"
    )


def selector_data() -> dict[str, Any]:
    return {
        "$schema": "https://anchorpath.dev/schema/selector.v1.json",
        "schema_version": 1,
        "policy": {"basis": "robots"},
        "site": {"id": SITE, "name": "Shop"},
        "version": 1,
        "parent_version": None,
        "provenance": {"method": "hand"},
        "fetch": {"start_urls": [f"{ORIGIN_OLD}/list?page=1"]},
        "page_types": {
            "list": {
                "match": "/list\\?",
                "record_root": "//table[@data-board='items']/tbody/tr",
                "fields": {
                    "code": {"xpath": "td[1]/a", "type": "string", "required": True},
                    "name": {"xpath": "td[2]", "type": "string", "required": True},
                    "link": {"xpath": "td/a/@href", "type": "url"},
                },
            },
            "detail": detail_page_type(),
        },
        "key": ["code"],
    }


def make_bundle(
    root: Path,
    *,
    tamper: dict[str, str] | None = None,
    unchanged: bool = False,
    detail_param: str = "id",
) -> Path:
    """A bundle as the runner writes it: old-template snapshots and their records, new-template
    snapshots. ``tamper`` rewrites one last good value ({"field": ..., "value": ...});
    ``unchanged`` keeps the old template on the failing side; ``detail_param`` renames the
    detail pages' query parameter on the failing side (URLs no longer pair them)."""
    pages_old = [(f"/list?page={p}", list_old(ITEMS[p * 2 - 2 : p * 2])) for p in (1, 2)]
    pages_old += [(f"/item?id={it['code']}", detail_old(it)) for it in ITEMS[:3]]
    lst, det = (list_old, detail_old) if unchanged else (list_new, detail_new)
    pages_new = [(f"/list?page={p}", lst(ITEMS[p * 2 - 2 : p * 2])) for p in (1, 2)]
    pages_new += [(f"/item?{detail_param}={it['code']}", det(it)) for it in ITEMS[:3]]

    def edit(records: list[dict[str, Any]]) -> None:
        for r in records:
            if tamper and r["_page_type"] == "detail" and r["code"] == "B-201":
                r[tamper["field"]] = tamper["value"]

    bundle = root / "bundle"
    return write_bundle(
        bundle,
        selector_data(),
        [(ORIGIN_OLD + path, html) for path, html in pages_old],
        [(ORIGIN_NEW + path, html) for path, html in pages_new],
        failing_fields={"detail.name": ["vanished"]},
        next_command=f"anchorpath author repair {SITE} --bundle {bundle}",
        edit_records=edit,
    )


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return make_bundle(tmp_path / "run")


@pytest.fixture
def selectors(tmp_path: Path) -> Path:
    d = tmp_path / "selectors"
    d.mkdir()
    (d / f"{SITE}.json").write_text(json.dumps(selector_data()), encoding="utf-8")
    return d


# -- library ------------------------------------------------------------------------------------


def test_read_bundle_checks_hashes(bundle: Path) -> None:
    b = read_bundle(bundle)
    assert (b.site, b.selector_version, len(b.last_good), len(b.failing)) == (SITE, 1, 5, 5)
    (bundle / "failing" / "001.html").write_bytes(b"<html>tampered</html>")
    with pytest.raises(Exception, match=r"001\.html: snapshot bytes do not match"):
        read_bundle(bundle)


def test_plan_repairs_only_broken_fields(bundle: Path) -> None:
    r = plan_repair(bundle)
    assert r.adopted, r.verification.mismatches
    assert r.matched == {"list": 4, "detail": 3}
    assert set(r.broken["detail"]) == {"name", "price"}  # code and maker still right
    assert set(r.broken["list"]) == {"code", "name"}  # link still right (port rebased)
    changed = {(c.page_type, c.field) for c in r.changes}
    assert ("detail", "code") not in changed and ("detail", "maker") not in changed
    new_detail = r.new.page_types["detail"].fields
    assert new_detail["maker"].xpath == r.old.page_types["detail"].fields["maker"].xpath
    assert "Product name" in new_detail["name"].xpath
    assert new_detail["price"].type == "integer" and new_detail["name"].required
    # The repaired file extracts the truth on the new template, new records included.
    rec = extract(r.new, detail_new(ITEMS[3]), f"{ORIGIN_NEW}/item?id=D-403")[0]
    assert dict(rec.values) == {
        "code": "D-403",
        "name": "Delta doohickey",
        "price": 55,
        "maker": "Dunder",
    }
    rows = extract(r.new, list_new(ITEMS[2:4]), f"{ORIGIN_NEW}/list?page=9")
    assert [(x.values["code"], x.values["name"]) for x in rows] == [
        ("C-302", "Gamma gizmo"),
        ("D-403", "Delta doohickey"),
    ]
    # 7 matched records on the failing snapshots, the same 7 on the last good snapshots.
    assert r.verification.records_checked == 14
    # The old template still reads (the old XPath is the last fallback of a changed field).
    old = extract(r.new, detail_old(ITEMS[1]), f"{ORIGIN_OLD}/item?id=B-201")[0]
    assert old.values["name"] == "Beta gadget" and old.values["price"] == 30


def test_detail_pages_pair_by_key_text_when_urls_differ(tmp_path: Path) -> None:
    r = plan_repair(make_bundle(tmp_path / "run", detail_param="code"))
    assert r.adopted and r.matched == {"list": 4, "detail": 3}
    assert set(r.broken["detail"]) == {"name", "price"}


def test_unbroken_bundle_has_nothing_to_repair(tmp_path: Path, selectors: Path) -> None:
    b = make_bundle(tmp_path / "run", unchanged=True)
    r = plan_repair(b)
    assert r.adopted and not r.changes and not r.broken
    assert any("detail.name: flagged by the drift gate" in n for n in r.notes)
    res = _cli(SITE, "--bundle", str(b), "--selectors", str(selectors), "--yes")
    assert res.exit_code == 1 and "nothing to repair" in res.output
    assert load_selector_file(selectors / f"{SITE}.json").version == 1


def test_save_bumps_version_archives_and_records_provenance(bundle: Path, selectors: Path) -> None:
    r = repair_from_bundle(bundle, selectors_dir=selectors)
    assert r.saved is not None and r.saved.version == 2
    current = load_selector_file(selectors / f"{SITE}.json")
    assert (current.version, current.parent_version) == (2, 1)
    assert current.provenance.method == "repair"
    assert "test-run" in (current.provenance.notes or "")
    assert len(current.provenance.seeds) == 5
    assert (selectors / ".history" / SITE / "v1.json").is_file()
    assert load_selector_file(selectors / f"{SITE}.json", version=1).provenance.method == "hand"


def test_default_target_is_the_file_the_run_used(bundle: Path, selectors: Path) -> None:
    manifest = json.loads((bundle / "bundle.json").read_text(encoding="utf-8"))
    manifest["selector_source"] = str(selectors / f"{SITE}.json")
    (bundle / "bundle.json").write_text(json.dumps(manifest), encoding="utf-8")
    r = repair_from_bundle(bundle)
    assert r.target == selectors / f"{SITE}.json" and r.saved is not None
    assert load_selector_file(selectors / f"{SITE}.json").version == 2


def test_missing_current_file_is_an_error(bundle: Path, tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no current selector file of site 'shop'"):
        repair_from_bundle(bundle, selectors_dir=tmp_path / "empty")


def test_fixtures_are_replaced_by_verified_snapshots(bundle: Path, selectors: Path) -> None:
    data = selector_data()
    data["fixtures"] = [{"page": "fixtures/shop/old.html", "url": f"{ORIGIN_OLD}/list?page=1"}]
    (selectors / f"{SITE}.json").write_text(json.dumps(data), encoding="utf-8")
    (bundle / "selector.json").write_text(json.dumps(data), encoding="utf-8")
    r = repair_from_bundle(bundle, selectors_dir=selectors)
    assert r.saved is not None
    sf = load_selector_file(selectors / f"{SITE}.json")
    assert [fx.page for fx in sf.fixtures] == [
        f"fixtures/shop/repair-v2/{i:03d}.html" for i in range(1, 6)
    ]
    fx = sf.fixtures[0]
    assert fx.records is not None and fx.url == f"{ORIGIN_NEW}/list?page=1"
    records = json.loads((selectors / fx.records).read_text(encoding="utf-8"))
    assert [x["code"] for x in records] == ["A-100", "B-201"]


def test_a_file_without_fixtures_gets_them_from_the_repair(bundle: Path, selectors: Path) -> None:
    from anchorpath.review.check import check_file

    assert not load_selector_file(selectors / f"{SITE}.json").fixtures
    r = repair_from_bundle(bundle, selectors_dir=selectors)
    assert r.saved is not None
    sf = load_selector_file(selectors / f"{SITE}.json")
    assert len(sf.fixtures) == 5 and all(fx.records for fx in sf.fixtures)
    checked = check_file(selectors / f"{SITE}.json")
    assert checked.ok and checked.records > 0, checked.problems


def test_dry_run_writes_nothing(bundle: Path, selectors: Path) -> None:
    before = (selectors / f"{SITE}.json").read_bytes()
    r = repair_from_bundle(bundle, selectors_dir=selectors, dry_run=True)
    assert r.adopted and r.saved is None
    assert (selectors / f"{SITE}.json").read_bytes() == before
    assert not (selectors / ".history").exists()


def test_unreproducible_records_are_refused(tmp_path: Path, selectors: Path) -> None:
    # A last good value that is nowhere on the failing page (or a store that lies): no XPath
    # can reproduce it, so the repair must not be adopted.
    b = make_bundle(tmp_path / "run", tamper={"field": "maker", "value": "Nonexistent Corp"})
    before = (selectors / f"{SITE}.json").read_bytes()
    r = repair_from_bundle(b, selectors_dir=selectors)
    assert not r.adopted and r.saved is None
    assert "detail.maker" in r.unreproduced
    assert any(
        m.field == "maker" and m.want == "Nonexistent Corp" for m in r.verification.mismatches
    )
    assert (selectors / f"{SITE}.json").read_bytes() == before


def test_selector_file_changed_since_drift_is_an_error(bundle: Path, selectors: Path) -> None:
    data = selector_data()
    data["version"] = 5
    (selectors / f"{SITE}.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(Exception, match=r"version 5.*bundle was made with version 1"):
        repair_from_bundle(bundle, selectors_dir=selectors)


def test_bad_bundle_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bundle.json").write_text('{"format": "other"}', encoding="utf-8")
    with pytest.raises(Exception, match="unsupported bundle format"):
        plan_repair(tmp_path)


# -- CLI ----------------------------------------------------------------------------------------


def _cli(*args: str) -> Any:
    return CliRunner().invoke(main, ["author", "repair", *args])


def test_cli_repair_writes_and_prints_diff_and_next(bundle: Path, selectors: Path) -> None:
    res = _cli(SITE, "--bundle", str(bundle), "--selectors", str(selectors), "--yes")
    assert res.exit_code == 0, res.output
    assert "detail.name: anchor label-text 'Name' → label-text 'Product name'" in res.output
    assert "unchanged (still right): code, maker" in res.output
    assert "all reproduced" in res.output
    assert "(version 2, was 1)" in res.output
    assert f"next: anchorpath run {SITE} --selectors {selectors}" in res.output
    assert load_selector_file(selectors / f"{SITE}.json").version == 2


def test_cli_dry_run_and_no_yes(bundle: Path, selectors: Path) -> None:
    before = (selectors / f"{SITE}.json").read_bytes()
    res = _cli(SITE, "--bundle", str(bundle), "--selectors", str(selectors), "--dry-run")
    assert res.exit_code == 0, res.output
    assert "dry run: not written" in res.output
    # Without --yes the review session opens; the end of the input quits without writing.
    res = _cli(SITE, "--bundle", str(bundle), "--selectors", str(selectors), "--no-screenshots")
    assert res.exit_code == 1 and "not written" in res.output
    assert (selectors / f"{SITE}.json").read_bytes() == before


def test_cli_repair_session_through_a_pipe(bundle: Path, selectors: Path) -> None:
    args = [SITE, "--bundle", str(bundle), "--selectors", str(selectors), "--no-screenshots"]
    res = CliRunner().invoke(main, ["author", "repair", *args], input="\n" * 40)
    assert res.exit_code == 0, res.output
    assert "page type detail reviewed" in res.output and "■ name (string)" in res.output
    assert load_selector_file(selectors / f"{SITE}.json").version == 2


# Right on the new template (row 3 is "Product name"), wrong on the old one (row 3 is "Price").
ROW3 = "/descendant::table[1]/tr[3]/td[1]"


def _with_name_xpath(sf: Any, xpath: str) -> Any:
    pt = sf.page_types["detail"]
    name = replace(pt.fields["name"], xpath=xpath, fallbacks=())
    return replace(
        sf, page_types={**sf.page_types, "detail": replace(pt, fields={**pt.fields, "name": name})}
    )


def test_reverify_checks_an_edit_on_the_last_good_snapshots(bundle: Path) -> None:
    r = plan_repair(bundle)
    assert reverify(r, r.new).adopted  # the automatic repair, unedited, passes again
    bad = reverify(r, _with_name_xpath(r.new, ROW3))
    assert not bad.adopted and bad.unreproduced == ("detail.name",)
    assert "(last good, last_good/003.html)" in bad.verification.reason()
    assert 'expected "Alpha widget", got "12"' in bad.verification.reason()
    # A right new XPath passes: the old XPath is appended as its last fallback.
    right = "/descendant::th[normalize-space()='Product name'][1]/following-sibling::td[1]"
    good = reverify(r, _with_name_xpath(r.new, right))
    assert good.adopted, good.verification.reason()
    name = good.new.page_types["detail"].fields["name"]
    assert name.fallbacks == (r.old.page_types["detail"].fields["name"].xpath,)
    assert [c.field for c in good.changes if c.page_type == "detail"] == ["name", "price"]


def test_cli_session_edit_wrong_on_last_good_is_refused(bundle: Path, selectors: Path) -> None:
    before = (selectors / f"{SITE}.json").read_bytes()
    args = [SITE, "--bundle", str(bundle), "--selectors", str(selectors), "--no-screenshots"]
    # list: code, name, link, write; detail: code, then name's XPath edited; accept the rest.
    answers = "\n" * 5 + f"x\n{ROW3}\n" + "\n" * 10
    res = CliRunner().invoke(main, ["author", "repair", *args], input=answers)
    assert res.exit_code == 1, res.output
    last = res.output.strip().splitlines()[-1]
    assert last.startswith("Error: not written: page type detail: the edited repair fails the")
    assert "detail.name on http://127.0.0.1:1111/item?id=A-100 (last good" in last
    assert (selectors / f"{SITE}.json").read_bytes() == before
    assert not (selectors / ".history").exists() and not (selectors / "fixtures").exists()


def test_cli_refuses_with_fields_named(tmp_path: Path, selectors: Path) -> None:
    b = make_bundle(tmp_path / "run", tamper={"field": "maker", "value": "Nonexistent Corp"})
    res = _cli(SITE, "--bundle", str(b), "--selectors", str(selectors), "--yes")
    assert res.exit_code == 1
    assert "repair refused, nothing written" in res.output
    assert "detail.maker" in res.output
    assert load_selector_file(selectors / f"{SITE}.json").version == 1


def test_cli_site_mismatch_is_usage_error(bundle: Path, selectors: Path) -> None:
    res = _cli("other-site", "--bundle", str(bundle), "--selectors", str(selectors))
    assert res.exit_code == 2 and "is for site 'shop'" in res.output


def test_cli_help_describes_the_flow() -> None:
    res = CliRunner().invoke(main, ["author", "repair", "--help"])
    assert res.exit_code == 0
    assert "--bundle" in res.output and "anchorpath run SITE" in res.output


# -- end to end against the demo ----------------------------------------------------------------

REPO = Path(__file__).resolve().parents[3]
DEMO_SITE = "mfds-dmf"


def _settings() -> Any:
    from anchorpath._config import Settings

    s = Settings()
    return replace(
        s,
        fetch=replace(
            s.fetch,
            min_delay=0.0,
            delay_factor=0.0,
            allow_private_networks=True,
            contact="tests@anchorpath.invalid",
        ),
    )


def _run_day(state: Path, selectors: Path, day: int) -> Any:
    from anchorpath.runner.pipeline import run_site
    from anchorpath.runner.run_types import RunOptions

    with DemoServer(day=day) as srv:
        opts = RunOptions(DEMO_SITE, selectors, state, base_url=srv.base_url, settings=_settings())
        return run_site(opts)


@pytest.fixture(scope="module")
def demo_drift(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("repair-demo")
    selectors = root / "selectors"
    selectors.mkdir()
    shutil.copyfile(REPO / "selectors" / f"{DEMO_SITE}.json", selectors / f"{DEMO_SITE}.json")
    if (REPO / "selectors" / "fixtures" / DEMO_SITE).is_dir():  # golden fixtures, if present
        shutil.copytree(
            REPO / "selectors" / "fixtures" / DEMO_SITE, selectors / "fixtures" / DEMO_SITE
        )
    state = root / "state"
    for day in (1, 2):
        assert _run_day(state, selectors, day).verdict == "ok"
    r3 = _run_day(state, selectors, 3)
    assert (r3.verdict, r3.exit_code) == ("drift", 3)
    assert r3.bundle is not None
    return {"root": root, "selectors": selectors, "state": state, "bundle": r3.bundle}


@pytest.mark.slow
def test_demo_day3_repair_then_run_passes(demo_drift: dict[str, Any]) -> None:
    from anchorpath.demo.data import expected_events
    from anchorpath.runner.store.database import Store

    selectors, state = demo_drift["selectors"], demo_drift["state"]
    res = _cli(
        DEMO_SITE, "--bundle", str(demo_drift["bundle"]), "--selectors", str(selectors), "--yes"
    )
    assert res.exit_code == 0, res.output
    assert "all reproduced" in res.output
    assert f"next: anchorpath run {DEMO_SITE}" in res.output
    sf = load_selector_file(selectors / f"{DEMO_SITE}.json")
    assert (sf.version, sf.provenance.method) == (2, "repair")
    # Working fields kept their XPaths.
    old = load_selector_file(selectors / f"{DEMO_SITE}.json", version=1)
    for pt, name in [("detail", "reg_no"), ("detail", "remarks"), ("list", "detail_url")]:
        assert sf.page_types[pt].fields[name].xpath == old.page_types[pt].fields[name].xpath
    # Old-template fixtures are replaced by the verified failing snapshots and their records.
    if old.fixtures:
        assert sf.fixtures and all("repair-v2" in fx.page for fx in sf.fixtures)
        for fx in sf.fixtures:
            assert fx.records is not None
            want = json.loads((selectors / fx.records).read_text(encoding="utf-8"))
            got = [r.to_dict() for r in extract(sf, (selectors / fx.page).read_bytes(), fx.url)]
            assert got == want
    r = _run_day(state, selectors, 3)
    assert (r.verdict, r.exit_code, r.complete) == ("ok", 0, True), r.drift
    assert r.invalid == 0 and r.records == 65
    truth = expected_events(2, 3)
    assert not truth.new and not truth.changed and not truth.withdrawn
    assert r.events == []  # same data as day 2: no spurious new/changed/withdrawn
    runs = Store.in_state_dir(state).runs(DEMO_SITE)
    assert (runs[0].verdict, runs[0].selector_version) == ("ok", 2)


@pytest.mark.slow
def test_demo_broken_bundle_is_refused(demo_drift: dict[str, Any], tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    shutil.copytree(demo_drift["bundle"], bundle)
    path = bundle / "last_good" / "records.json"
    records = json.loads(path.read_text(encoding="utf-8"))
    for r in records:
        if r["_page_type"] == "detail":
            r["applicant"] = "(주)존재하지않는제약"  # not on any failing snapshot
    path.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    selectors = tmp_path / "selectors"
    selectors.mkdir()
    shutil.copyfile(REPO / "selectors" / f"{DEMO_SITE}.json", selectors / f"{DEMO_SITE}.json")
    before = (selectors / f"{DEMO_SITE}.json").read_bytes()
    res = _cli(DEMO_SITE, "--bundle", str(bundle), "--selectors", str(selectors), "--yes")
    assert res.exit_code == 1
    assert "repair refused, nothing written" in res.output
    assert "detail.applicant" in res.output
    assert (selectors / f"{DEMO_SITE}.json").read_bytes() == before


def test_cli_nothing_to_match_says_why_and_points_to_accept(
    tmp_path: Path, selectors: Path
) -> None:
    b = make_bundle(tmp_path / "run")
    (b / "last_good" / "records.json").write_text("[]", encoding="utf-8")
    res = _cli(SITE, "--bundle", str(b), "--selectors", str(selectors), "--yes")
    assert res.exit_code == 1
    message = " ".join(res.output.split())
    assert "repair refused, nothing written: the bundle's 5 last good page(s) gave no " in message
    assert "no run of the site was committed" not in message  # there was one
    assert f"anchorpath accept {SITE} test-run" in message
    assert "re-author the site from the failing pages" in message


def test_cli_an_empty_last_good_snapshot_is_one_clear_error(tmp_path: Path) -> None:
    """A bundle written from a day of 304s by an older anchorpath: its last good pages are
    0-byte files. Nothing can be learnt from them; the error says so (not "no run")."""
    bundle = write_bundle(
        tmp_path / "bundle",
        selector_data(),
        [(f"{ORIGIN_OLD}/item?id=B-201", "")],
        [(f"{ORIGIN_NEW}/item?id=B-201", detail_new(ITEMS[1]))],
        failing_fields={"detail.name": ["vanished"]},
    )
    res = _cli(SITE, "--bundle", str(bundle), "--dry-run")
    assert res.exit_code == 1
    assert "001.html: the last good snapshot is empty" in res.output
    assert "run the site again for a new bundle" in res.output
    assert "Traceback" not in res.output
