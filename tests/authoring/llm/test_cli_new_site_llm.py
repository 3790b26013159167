"""``anchorpath author new-site`` with field names only, against the test server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel
from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import load_selector_file

from .conftest import BOOKS, Shop, book_page

SECRET = "sk-live-DO-NOT-LEAK-42"


def _args(shop: Shop, out: Path, *extra: str) -> list[str]:
    args = ["author", "new-site", "shop", "--yes", "--selectors", str(out), "--render", "http"]
    for f, (url, _) in zip(shop.files, shop.pages, strict=True):
        args += ["--seed", str(f), "--seed-url", url]
    return args + list(extra)


@pytest.mark.slow
def test_field_names_only_matches_examples_path_and_reauthoring_makes_no_call(
    shop: Shop, tmp_path: Path
) -> None:
    runner = CliRunner()
    fields = ["--field", "title", "--field", "isbn_13", "--field", "publisher", "--field", "price"]
    with FakeOpenAIServer(TruthModel(shop.truth)) as srv:
        env = srv.cli_env(tmp_path / "cache", api_key=SECRET)
        res = runner.invoke(main, _args(shop, tmp_path / "llm", *fields), env=env)
        assert res.exit_code == 0, res.output
        first = len(srv.requests)
        assert 3 <= first <= 3 + 3 + 1
        written = (tmp_path / "llm" / "shop.json").read_bytes()
        again = runner.invoke(main, _args(shop, tmp_path / "llm2", *fields), env=env)
        assert again.exit_code == 0, again.output
        assert len(srv.requests) == first  # 0 calls: everything from the cache
        assert (tmp_path / "llm2" / "shop.json").read_bytes() == written
    assert SECRET not in res.output + again.output
    assert "0 LLM call(s), 6 cache hit(s)" in again.output or "0 LLM call(s)" in again.output
    sf = load_selector_file(tmp_path / "llm" / "shop.json")
    prov = sf.provenance
    assert prov.method == "llm" and prov.model == "truth-1"
    assert prov.endpoint and prov.endpoint.startswith("127.0.0.1:")
    assert prov.prompt_hash and len(prov.prompt_hash) == 64
    # the examples path, from the same values typed by a person
    examples = {
        str(f): {k: v[0] for k, v in shop.truth[url].items() if k != "author"}
        for f, (url, _) in zip(shop.files, shop.pages, strict=True)
    }
    exf = tmp_path / "ex.json"
    exf.write_text(json.dumps(examples), encoding="utf-8")
    ex_res = runner.invoke(main, _args(shop, tmp_path / "ex", "--examples", str(exf)))
    assert ex_res.exit_code == 0, ex_res.output
    by_hand = load_selector_file(tmp_path / "ex" / "shop.json")
    for url, html in shop.pages:
        assert [r.values for r in extract(sf, html, url)] == [
            r.values for r in extract(by_hand, html, url)
        ]
    ledger = tmp_path / "cache" / "llm-ledger" / "shop.jsonl"
    lines = [json.loads(x) for x in ledger.read_text().splitlines()]
    assert {x["event"] for x in lines} == {"call", "hit"}
    for f in (tmp_path / "cache").rglob("*"):
        if f.is_file():
            assert SECRET.encode() not in f.read_bytes(), f


def test_unfindable_field_gives_partial_exit(shop: Shop, tmp_path: Path) -> None:
    with FakeOpenAIServer(TruthModel(shop.truth)) as srv:
        res = CliRunner().invoke(
            main,
            _args(shop, tmp_path, "--field", "title", "--field", "colour"),
            env=srv.cli_env(tmp_path / "cache", api_key=SECRET),
        )
    assert res.exit_code == 5, res.output
    assert "not authored: colour" in res.output
    sf = load_selector_file(tmp_path / "shop.json")
    assert list(sf.page_types["detail"].fields) == ["title"]


def test_field_discovery_from_the_cli(shop: Shop, tmp_path: Path) -> None:
    with FakeOpenAIServer(TruthModel(shop.truth)) as srv:
        res = CliRunner().invoke(
            main, _args(shop, tmp_path), env=srv.cli_env(tmp_path / "cache", api_key=SECRET)
        )
        assert srv.calls(["template_fields"]) == 1
    assert res.exit_code == 0, res.output
    assert "proposed fields: title (string), author (string)" in res.output
    fields = load_selector_file(tmp_path / "shop.json").page_types["detail"].fields
    assert {"title", "author", "isbn_13", "publisher", "price"} <= set(fields)


def test_fields_file_and_bad_input(shop: Shop, tmp_path: Path) -> None:
    runner = CliRunner()
    ff = tmp_path / "fields.json"
    ff.write_text('[{"name": "isbn_13", "description": "ISBN"}]', encoding="utf-8")
    with FakeOpenAIServer(TruthModel(shop.truth)) as srv:
        env = srv.cli_env(tmp_path / "cache", api_key=SECRET)
        ok = runner.invoke(main, _args(shop, tmp_path / "o", "--fields", str(ff)), env=env)
        assert ok.exit_code == 0, ok.output
        both = runner.invoke(main, _args(shop, tmp_path, "--field", "a", "--examples", str(ff)))
        assert both.exit_code == 2 and "cannot be combined" in both.output
        (tmp_path / "bad.json").write_text("[1", encoding="utf-8")
        bad = runner.invoke(main, _args(shop, tmp_path, "--fields", str(tmp_path / "bad.json")))
        assert bad.exit_code == 1 and "invalid JSON at line 1" in bad.output
    env = {
        **env,
        "ANCHORPATH_LLM_BASE_URL": "http://127.0.0.1:9/v1",
        "ANCHORPATH_LLM__MAX_RETRIES": "0",
    }
    down = runner.invoke(main, _args(shop, tmp_path / "d", "--field", "title"), env=env)
    assert down.exit_code == 1 and "cannot connect" in down.output
    assert "Traceback" not in down.output and SECRET not in down.output


def test_endpoint_without_structured_outputs(shop: Shop, tmp_path: Path) -> None:
    """Like an older llama.cpp server: json_schema refused, json_object + validation used."""
    with FakeOpenAIServer(TruthModel(shop.truth), reject_json_schema=True) as srv:
        res = CliRunner().invoke(
            main,
            _args(shop, tmp_path, "--field", "title", "--field", "isbn_13"),
            env=srv.cli_env(tmp_path / "cache", api_key=SECRET),
        )
        kinds = [b["response_format"]["type"] for b in srv.requests]
    assert res.exit_code == 0, res.output
    assert kinds[0] == "json_schema" and set(kinds[1:]) == {"json_object"}
    sf = load_selector_file(tmp_path / "shop.json")
    url, html = shop.pages[1]
    assert extract(sf, html, url)[0].values == {
        "title": "Salt and Cedar",
        "isbn_13": "9781420106879",
    }


def test_yes_leaves_a_constant_named_field_unconfirmed_unless_allowed(
    shop: Shop, tmp_path: Path
) -> None:
    # Issue 25: a banner planted on every seed, which the model reads as the publisher.
    kettle = "FREE-KETTLE-0"
    for f in shop.files:
        html = f.read_text(encoding="utf-8")
        f.write_text(html.replace("</h1>", f'</h1><div class="promo">{kettle}</div>'), "utf-8")
    truth = {u: {**t, "publisher": [kettle]} for u, t in shop.truth.items()}
    fields = ["--field", "title", "--field", "publisher"]
    runner = CliRunner()
    with FakeOpenAIServer(TruthModel(truth)) as srv:
        env = srv.cli_env(tmp_path / "cache")
        res = runner.invoke(main, _args(shop, tmp_path / "a", *fields), env=env)
        allowed = runner.invoke(
            main, _args(shop, tmp_path / "b", *fields, "--allow-constant"), env=env
        )
    assert res.exit_code == 5, res.output
    assert f'not authored: publisher: the same value "{kettle}" on all 3 seeds' in res.stderr
    assert (
        'kept when the page names the field at it on every seed (a label such as "Publisher:"'
        in (" ".join(res.stderr.split()))
    )
    assert list(load_selector_file(tmp_path / "a" / "shop.json").page_types["detail"].fields) == [
        "title"
    ]
    assert allowed.exit_code == 0, allowed.output
    sf = load_selector_file(tmp_path / "b" / "shop.json")
    assert "publisher" in sf.page_types["detail"].fields


def test_yes_keeps_a_constant_named_field_the_page_labels(shop: Shop, tmp_path: Path) -> None:
    # Three seeds from one publisher: the label table names it on every seed ("Publisher").
    same = "Northwind Press"
    for f in shop.files:
        html = f.read_text(encoding="utf-8")
        for _, _, _, publisher, _ in BOOKS:
            html = html.replace(f"<td>{publisher}</td>", f"<td>{same}</td>")
        f.write_text(html, "utf-8")
    truth = {u: {**t, "publisher": [same]} for u, t in shop.truth.items()}
    with FakeOpenAIServer(TruthModel(truth)) as srv:
        res = CliRunner().invoke(
            main,
            _args(shop, tmp_path, "--field", "title", "--field", "publisher"),
            env=srv.cli_env(tmp_path / "cache"),
        )
    assert res.exit_code == 0, res.output
    sf = load_selector_file(tmp_path / "shop.json")
    assert list(sf.page_types["detail"].fields) == ["title", "publisher"]
    other = book_page(1).replace("Lantern House", "Harbour Books")  # another publisher's book
    assert extract(sf, other, shop.pages[1][0])[0].values["publisher"] == "Harbour Books"
