"""The shortest whole story of a site, through the CLI on loopback: a day of 304s, a redesign
(drift), the repair from the alert bundle — without an LLM, and with ``--answer`` where the
last good values are no longer on the pages — and the next run ``ok``.

The site is generated here: a list page linking to detail pages, served with an ``ETag`` per
page and ``304 Not Modified`` for a matching ``If-None-Match`` (as most servers answer).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from anchorpath.cli import main
from anchorpath.runner.store.database import Store

FAST = {
    "ANCHORPATH_FETCH__MIN_DELAY": "0",
    "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
    "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
    "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
}
ITEMS = {
    "A-100": ("Alpha widget", "12.50"),
    "B-201": ("Beta gadget", "30.00"),
    "C-302": ("Gamma gizmo", "7.25"),
}
OTHER = {  # the redesign day of the second story: other records only
    "D-403": ("Delta sprocket", "41.00"),
    "E-504": ("Epsilon flange", "9.90"),
    "F-605": ("Zeta grommet", "64.00"),
}


def page(body: str) -> bytes:
    return f'<html><head><meta charset="utf-8"><title>Shop</title></head><body>{body}</body></html>'.encode()


def site(items: dict[str, tuple[str, str]], *, redesign: bool = False) -> dict[str, bytes]:
    rows = "".join(f'<li><a href="/item/{c}">{n}</a></li>' for c, (n, _p) in items.items())
    pages = {"/list": page(f'<main><h1>Items</h1><ul class="items">{rows}</ul></main>')}
    for code, (name, price) in items.items():
        if redesign:  # the facts table becomes a definition list with new labels
            body = (
                '<main><section class="product"><h2>Product</h2><dl>'
                f"<dt>Item code</dt><dd>{code}</dd><dt>Product name</dt><dd>{name}</dd>"
                f"<dt>Unit price</dt><dd>{price}</dd></dl></section></main>"
            )
        else:
            body = (
                '<main><h1>Item</h1><table class="facts">'
                f"<tr><th>Code</th><td>{code}</td></tr><tr><th>Name</th><td>{name}</td></tr>"
                f"<tr><th>Price</th><td>{price}</td></tr></table></main>"
            )
        pages[f"/item/{code}"] = page(body)
    return pages


class Site:
    """The generated shop on 127.0.0.1: ``pages`` may be swapped between runs."""

    def __init__(self) -> None:
        self.pages: dict[str, bytes] = {}
        self.log: list[tuple[str, int]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                body = owner.pages.get(self.path)
                if body is None:
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    owner.log.append((self.path, 404))
                    return
                tag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
                code = 304 if self.headers.get("If-None-Match") == tag else 200
                self.send_response(code)
                self.send_header("ETag", tag)
                if code == 200:
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if code == 200:
                    self.wfile.write(body)
                owner.log.append((self.path, code))

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def shop() -> Iterator[Site]:
    s = Site()
    s.thread.start()
    try:
        yield s
    finally:
        s.server.shutdown()
        s.server.server_close()


def selector_file(sel: Path) -> None:
    def label(text: str, **extra: Any) -> dict[str, Any]:
        return {
            "xpath": f"/descendant::th[normalize-space()='{text}'][1]/following-sibling::td[1]",
            "anchor": {"kind": "label-text", "value": text, "axis": "following-sibling::td[1]"},
            "type": "string",
            **extra,
        }

    data = {
        "schema_version": 1,
        "site": {"id": "shop", "name": "Shop"},
        "version": 1,
        "provenance": {"method": "hand"},
        "policy": {"basis": "robots"},
        "fetch": {"start_urls": ["http://127.0.0.1:8765/list"], "max_depth": 1},
        "page_types": {
            "list": {
                "match": "/list$",
                "record_root": "//ul[@class='items']/li",
                "emit": False,
                "follow": ["//ul[@class='items']/li/a/@href"],
                "fields": {"name": {"xpath": "a", "type": "string"}},
            },
            "detail": {
                "match": "/item/",
                "fields": {
                    "code": label("Code", required=True, pattern="^[A-Z]-\\d{3}$"),
                    "name": label("Name", required=True),
                    "price": label("Price", type="number"),
                },
            },
        },
        "key": ["code"],
    }
    sel.mkdir(parents=True)
    (sel / "shop.json").write_text(json.dumps(data), encoding="utf-8")


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env=FAST)


def run(shop: Site, sel: Path, state: Path) -> Result:
    return cli(
        "run", "shop", "--selectors", str(sel), "--state", str(state), "--base-url", shop.base_url
    )


def two_good_days(shop: Site, sel: Path, state: Path) -> None:
    shop.pages = site(ITEMS)
    first = run(shop, sel, state)
    assert first.exit_code == 0, first.output
    before = len(shop.log)
    quiet = run(shop, sel, state)  # nothing changed: every page answers 304
    assert quiet.exit_code == 0, quiet.output
    assert {code for _p, code in shop.log[before:] if _p != "/robots.txt"} == {304}


def drift_day(shop: Site, sel: Path, state: Path, items: dict[str, tuple[str, str]]) -> Path:
    shop.pages = site(items, redesign=True)
    res = run(shop, sel, state)
    assert res.exit_code == 3, res.output
    (bundle,) = (state / "runs" / "shop").glob("*/bundle")
    return bundle


def runs(state: Path) -> list[Any]:
    with Store.in_state_dir(state) as store:
        return list(reversed(store.runs("shop")))


@pytest.mark.slow
def test_a_304_day_then_drift_then_the_llm_free_repair_then_ok(shop: Site, tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    selector_file(sel)
    two_good_days(shop, sel, state)
    bundle = drift_day(shop, sel, state, ITEMS)
    repaired = cli("author", "repair", "shop", "--bundle", str(bundle), "--yes")
    assert repaired.exit_code == 0, repaired.output
    assert "wrote " in repaired.output and "(version 2, was 1)" in repaired.output
    again = run(shop, sel, state)
    assert again.exit_code == 0, again.output
    assert [r.verdict for r in runs(state)] == ["ok", "ok", "drift", "ok"]
    last = runs(state)[-1]
    assert (last.selector_version, last.new, last.changed, last.withdrawn) == (2, 0, 0, 0)
    # the repaired file carries golden fixtures that `check` verifies
    checked = cli("check", str(sel / "shop.json"))
    assert checked.exit_code == 0, checked.output


@pytest.mark.slow
def test_a_304_day_then_drift_then_the_repair_from_an_answer_then_ok(
    shop: Site, tmp_path: Path
) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    selector_file(sel)
    two_good_days(shop, sel, state)
    bundle = drift_day(shop, sel, state, OTHER)
    # other records only: the last good values are nowhere on the failing pages
    refused = cli("author", "repair", "shop", "--bundle", str(bundle), "--yes")
    assert refused.exit_code == 1 and "nothing written" in refused.output
    prompt = (bundle / "prompt.md").read_text(encoding="utf-8")
    assert f"--bundle {bundle} --answer answer.json" in prompt
    m = re.search(r"## Answer.*?```json\n(.*?)```", prompt, re.S)
    assert m is not None
    template = json.loads(m.group(1))
    truth = {
        f"{shop.base_url}/item/{c}": {"code": c, "name": n, "price": p}
        for c, (n, p) in OTHER.items()
    }
    filled = {url: {f: truth[url][f] for f in fields} for url, fields in template.items()}
    assert len(filled) == 3 and all(set(v) >= {"name", "price"} for v in filled.values())
    reply = tmp_path / "reply.txt"
    reply.write_text(
        "Here are the values:\n```json\n" + json.dumps(filled, indent=1) + "\n```\n",
        encoding="utf-8",
    )
    repaired = cli("author", "repair", "shop", "--bundle", str(bundle), "--answer", str(reply))
    assert repaired.exit_code != 0  # no --yes and no terminal: the session writes nothing
    repaired = cli(
        "author", "repair", "shop", "--bundle", str(bundle), "--answer", str(reply), "--yes"
    )
    assert repaired.exit_code == 0, repaired.output
    again = run(shop, sel, state)
    assert again.exit_code == 0, again.output
    last = runs(state)[-1]
    assert (last.verdict, last.selector_version, last.new, last.withdrawn) == ("ok", 2, 3, 3)
    with Store.in_state_dir(state) as store:
        current = {k: dict(v.values) for k, v in store.current("shop").items()}
    assert current == {c: {"code": c, "name": n, "price": float(p)} for c, (n, p) in OTHER.items()}
