"""``author repair --llm``: the model is asked only where the last good values are no longer
on the failing pages; the repair is adopted only if it reproduces the last good records on the
last good snapshots and extracts plausible values on the failing ones. Test LLM server only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel
from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import load_selector_file

from .conftest import detail_new, detail_old, detail_page_type, write_bundle

OLD = [
    {"code": "A-100", "name": "Alpha widget", "price": "12", "maker": "Acme"},
    {"code": "B-201", "name": "Beta gadget", "price": "30", "maker": "Borg"},
    {"code": "C-302", "name": "Gamma gizmo", "price": "7", "maker": "Cyberdyne"},
]
NEW = [  # other records: none of the last good values is on the failing pages
    {"code": "E-504", "name": "Epsilon sprocket", "price": "41", "maker": "Eniac"},
    {"code": "F-605", "name": "Zeta flange", "price": "9", "maker": "Fabrikam"},
    {"code": "G-706", "name": "Eta grommet", "price": "64", "maker": "Globex"},
    {"code": "H-807", "name": "Theta bracket", "price": "18", "maker": "Hooli"},
]
OLD_ORIGIN, NEW_ORIGIN = "http://127.0.0.1:1111", "http://127.0.0.1:2222"


def detail_new_plain(it: dict[str, str]) -> str:
    return detail_new(it, code_label="Code")


def selector_data() -> dict[str, Any]:
    return {
        "$schema": "https://anchorpath.dev/schema/selector.v1.json",
        "schema_version": 1,
        "policy": {"basis": "robots"},
        "site": {"id": "shop", "name": "Shop"},
        "version": 1,
        "provenance": {"method": "hand"},
        "fetch": {"start_urls": [f"{OLD_ORIGIN}/item?id=A-100"]},
        "page_types": {"detail": detail_page_type()},
        "key": ["code"],
    }


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path, dict[str, Any]]:
    bundle = tmp_path / "run" / "bundle"
    old = [(f"{OLD_ORIGIN}/item?id={it['code']}", detail_old(it)) for it in OLD]
    new = [(f"{NEW_ORIGIN}/item?id={it['code']}", detail_new_plain(it)) for it in NEW]
    truth = {url: {k: [v] for k, v in it.items()} for (url, _), it in zip(new, NEW, strict=True)}
    failing_fields = {"name": ["vanished"], "price": ["vanished"]}
    write_bundle(bundle, selector_data(), old, new, failing_fields=failing_fields, run_id="r")
    selectors = tmp_path / "selectors"
    selectors.mkdir()
    (selectors / "shop.json").write_text(json.dumps(selector_data()), encoding="utf-8")
    return bundle, selectors, truth


def test_without_llm_other_records_cannot_be_repaired(
    setup: tuple[Path, Path, dict[str, Any]],
) -> None:
    bundle, selectors, _truth = setup
    args = ["author", "repair", "shop", "--bundle", str(bundle), "--selectors", str(selectors)]
    res = CliRunner().invoke(main, [*args, "--yes"])
    assert res.exit_code == 1 and "nothing written" in res.output


def test_llm_repair_asks_for_the_broken_page_type_and_is_verified(
    setup: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    bundle, selectors, truth = setup
    args = ["author", "repair", "shop", "--bundle", str(bundle), "--selectors", str(selectors)]
    with FakeOpenAIServer(TruthModel(truth)) as srv:
        res = CliRunner().invoke(
            main, [*args, "--llm", "--yes"], env=srv.cli_env(tmp_path / "cache")
        )
        calls = srv.calls()
    assert res.exit_code == 0, res.output
    assert "--llm: asking truth-1 about page type(s) detail" in res.output and calls >= 3
    sf = load_selector_file(selectors / "shop.json")
    assert (sf.version, sf.parent_version) == (2, 1)
    fields = sf.page_types["detail"].fields
    assert "Product name" in fields["name"].xpath and fields["price"].xpath != "Price"
    assert (
        fields["code"].xpath == selector_data()["page_types"]["detail"]["fields"]["code"]["xpath"]
    )
    assert (
        fields["name"]
        .fallbacks[-1]
        .endswith("[normalize-space()='Name'][1]/following-sibling::td[1]")
    )
    # new template and old template both read
    (rec,) = extract(sf, detail_new_plain(NEW[3]), f"{NEW_ORIGIN}/item?id=H-807")
    assert rec.values["name"] == "Theta bracket" and rec.values["price"] == 18
    (rec,) = extract(sf, detail_old(OLD[0]), f"{OLD_ORIGIN}/item?id=A-100")
    assert rec.values["name"] == "Alpha widget" and rec.values["price"] == 12
    assert "name" in res.output  # the per-field diff


def test_llm_repair_refuses_implausible_answers(
    setup: tuple[Path, Path, dict[str, Any]], tmp_path: Path
) -> None:
    bundle, selectors, truth = setup
    # The model answers the maker for "price": not an integer on any page.
    wrong = {u: {**t, "price": t["maker"]} for u, t in truth.items()}
    args = ["author", "repair", "shop", "--bundle", str(bundle), "--selectors", str(selectors)]
    before = (selectors / "shop.json").read_bytes()
    with FakeOpenAIServer(TruthModel(wrong)) as srv:
        res = CliRunner().invoke(
            main, [*args, "--llm", "--yes"], env=srv.cli_env(tmp_path / "cache")
        )
    assert res.exit_code == 1, res.output
    assert "nothing written" in res.output and "detail.price" in res.output
    assert (selectors / "shop.json").read_bytes() == before


@pytest.mark.slow
def test_demo_template_change_day_with_llm_needs_no_call(tmp_path: Path) -> None:
    """The demo's drift day: the bundle carries prompt.md, and --llm adopts the LLM-free
    repair without asking the model (every last good value is still on the failing pages)."""
    import shutil
    from dataclasses import replace

    from anchorpath._config import Settings
    from anchorpath.demo.server import DemoServer
    from anchorpath.runner.pipeline import run_site
    from anchorpath.runner.run_types import RunOptions

    repo = Path(__file__).resolve().parents[3]
    selectors = tmp_path / "selectors"
    selectors.mkdir()
    shutil.copyfile(repo / "selectors" / "mfds-dmf.json", selectors / "mfds-dmf.json")
    shutil.copytree(
        repo / "selectors" / "fixtures" / "mfds-dmf", selectors / "fixtures" / "mfds-dmf"
    )
    s = Settings()
    settings = replace(
        s,
        fetch=replace(
            s.fetch,
            min_delay=0.0,
            delay_factor=0.0,
            allow_private_networks=True,
            contact="tests@anchorpath.invalid",
        ),
    )
    result = None
    for day in (1, 2, 3):
        with DemoServer(day=day) as srv:
            opts = RunOptions(
                "mfds-dmf", selectors, tmp_path / "state", base_url=srv.base_url, settings=settings
            )
            result = run_site(opts)
    assert result is not None and result.verdict == "drift" and result.bundle is not None
    prompt = (Path(result.bundle) / "prompt.md").read_text(encoding="utf-8")
    assert "## Broken fields" in prompt and "XPath that stopped working" in prompt
    assert "Last good values on this page:" in prompt and "```markdown" in prompt
    args = ["author", "repair", "mfds-dmf", "--bundle", str(result.bundle)]
    args += ["--selectors", str(selectors), "--llm", "--yes"]
    with FakeOpenAIServer(TruthModel({})) as srv:
        res = CliRunner().invoke(main, args, env=srv.cli_env(tmp_path / "cache"))
        assert srv.calls() == 0
    assert res.exit_code == 0, res.output
    assert "no LLM call" in res.output and "all reproduced" in res.output
    assert load_selector_file(selectors / "mfds-dmf.json").version == 2


def test_llm_is_not_asked_about_an_unflagged_list_page_of_other_records(
    tmp_path: Path,
) -> None:
    """The list page shows other records than the last good one (nothing pairs), but the drift
    gate flagged only detail fields: the model is asked about the detail pages only, and the
    repair is adopted (it was refused: "no last good record to check the LLM repair against")."""
    from .test_pipeline import list_old

    data = selector_data()
    data["page_types"]["list"] = {
        "match": "/list\\?",
        "record_root": "//table[@data-board='items']/tbody/tr",
        "emit": False,
        "follow": ["//table[@data-board='items']/tbody/tr/td[1]/a/@href"],
        "fields": {"code": {"xpath": "td[1]/a", "type": "string"}},
    }
    bundle = tmp_path / "run" / "bundle"
    old = [(f"{OLD_ORIGIN}/list?page=1", list_old(OLD))]
    old += [(f"{OLD_ORIGIN}/item?id={it['code']}", detail_old(it)) for it in OLD]
    new = [(f"{NEW_ORIGIN}/list?page=1", list_old(NEW))]
    new += [(f"{NEW_ORIGIN}/item?id={it['code']}", detail_new_plain(it)) for it in NEW]
    truth = {u: {k: [v] for k, v in it.items()} for (u, _), it in zip(new[1:], NEW, strict=True)}
    failing_fields = {"detail.name": ["vanished"], "detail.price": ["vanished"]}
    write_bundle(bundle, data, old, new, failing_fields=failing_fields, run_id="r")
    selectors = tmp_path / "selectors"
    selectors.mkdir()
    (selectors / "shop.json").write_text(json.dumps(data), encoding="utf-8")
    args = ["author", "repair", "shop", "--bundle", str(bundle), "--selectors", str(selectors)]
    with FakeOpenAIServer(TruthModel(truth)) as srv:
        res = CliRunner().invoke(
            main, [*args, "--llm", "--yes"], env=srv.cli_env(tmp_path / "cache")
        )
    assert res.exit_code == 0, res.output
    assert "--llm: asking truth-1 about page type(s) detail\n" in res.output
    assert load_selector_file(selectors / "shop.json").version == 2
