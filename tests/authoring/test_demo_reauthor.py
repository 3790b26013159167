"""Acceptance: the demo site's page types re-authored from examples with
``anchorpath author new-site … --yes`` extract the same records as the hand-written
``selectors/mfds-dmf.json``. Pages come from the demo server (loopback only) and are saved to a
temporary directory first, as a person would save seed pages."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.selectors.evaluate import compile_selectors, evaluate_page, extract, parse_html
from anchorpath.selectors.load import load_selector_file, parse_selector_data

ROOT = Path(__file__).resolve().parents[2]
HAND = ROOT / "selectors" / "mfds-dmf.json"

pytestmark = pytest.mark.skipif(
    not HAND.is_file() or not (ROOT / "src/anchorpath/demo/server.py").is_file(),
    reason="demo server / selectors/mfds-dmf.json not available yet",
)


def _get(url: str) -> bytes:
    assert url.startswith("http://127.0.0.1"), url  # loopback only
    with urllib.request.urlopen(url, timeout=10) as resp:
        return bytes(resp.read())


def _as_example(v: Any) -> Any:
    if isinstance(v, list):
        return [str(x) for x in v]
    return None if v is None else str(v)


def _values(records: list[Any]) -> list[dict[str, Any]]:
    # The hand-written list field ``detail_url`` (``td/a[…][1]/@href``) yields one href per
    # cell with a link, joined by a space; compare its first URL only.
    return [
        {
            k: (v.split()[0] if k == "detail_url" and isinstance(v, str) else v)
            for k, v in r.values.items()
        }
        for r in records
    ]


def _reauthor(
    tmp: Path,
    name: str,
    pt_name: str,
    hand: Any,
    pages: list[tuple[str, bytes]],
    pick: list[int] | None,
) -> Any:
    """Save pages, write examples from the hand file's records, run the CLI, load result."""
    pt = hand.page_types[pt_name]
    examples: dict[str, dict[str, Any]] = {}
    args = [
        "author",
        "new-site",
        name,
        "--yes",
        "--out",
        str(tmp / "out"),
        "--page-type",
        pt_name,
        "--match",
        pt.match,
    ]
    for i, (url, body) in enumerate(pages):
        p = tmp / f"{pt_name}{i}.html"
        p.write_bytes(body)
        recs = extract(hand, body, url)
        if pick is None:
            vals = {k: _as_example(v) for k, v in recs[0].values.items()}
        else:
            chosen = [recs[j] for j in pick if j < len(recs)]
            vals = {k: [_as_example(r[k]) for r in _values(chosen)] for k in pt.fields}
        examples[str(p)] = vals
        args += ["--seed", str(p), "--seed-url", url]
    for fname, spec in pt.fields.items():
        if spec.type != "string":
            args += ["--type", f"{fname}={spec.type}"]
        if spec.required:
            args += ["--required", fname]
    if pick is not None:
        args.append("--list-page")
    exf = tmp / f"{pt_name}-examples.json"
    exf.write_text(json.dumps(examples, ensure_ascii=False), encoding="utf-8")
    res = CliRunner().invoke(main, [*args, "--examples", str(exf)])
    assert res.exit_code == 0, res.output
    return load_selector_file(tmp / "out" / f"{name}.json")


@pytest.mark.slow
def test_reauthor_demo_from_examples(tmp_path: Path) -> None:
    from anchorpath.demo import selector_text
    from anchorpath.demo.server import DemoServer

    with DemoServer(day=1) as server:  # type: ignore[call-arg]
        base = server.base_url.rstrip("/")
        hand = parse_selector_data(json.loads(selector_text(base)))
        compiled = compile_selectors(hand)
        list_pages: list[tuple[str, bytes]] = []
        detail_urls: list[str] = []
        url: str | None = hand.fetch.start_urls[0]
        while url and len(list_pages) < 4:
            body = _get(url)
            list_pages.append((url, body))
            page = evaluate_page(compiled, parse_html(body), url)
            detail_urls += [u for u in page.links if u not in detail_urls]
            url = page.next_url
        details = [(u, _get(u)) for u in detail_urls[:10]]

    detail_pt = next((n for n, pt in hand.page_types.items() if not pt.record_root), None)
    assert detail_pt is not None and len(details) >= 6
    sf = _reauthor(tmp_path, "dmf-detail", detail_pt, hand, details[:3], None)
    assert sf.provenance.method == "examples"
    for u, body in details[3:]:
        want = [r.values for r in extract(hand, body, u)]
        got = [r.values for r in extract(sf, body, u)]
        assert got == want, u

    list_pt = next((n for n, pt in hand.page_types.items() if pt.record_root and pt.fields), None)
    assert list_pt is not None and len(list_pages) == 4
    sf = _reauthor(tmp_path, "dmf-list", list_pt, hand, list_pages[:3], [0, 3, 6])
    assert sf.fetch.pagination is not None and sf.page_types[list_pt].record_root
    for u, body in list_pages[3:] + list_pages[:1]:
        want = _values(extract(hand, body, u))
        got = _values(extract(sf, body, u))
        assert got == want, u
