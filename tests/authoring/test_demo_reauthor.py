"""Acceptance: the demo site's page types re-authored from examples with
``anchorpath author new-site … --yes`` extract the same records as the hand-written
``selectors/mfds-dmf.json``. Pages come from the demo server (loopback only) and are saved to a
temporary directory first, as a person would save seed pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import load_selector_file

from .conftest import DemoPages, list_values

ROOT = Path(__file__).resolve().parents[2]
HAND = ROOT / "selectors" / "mfds-dmf.json"

pytestmark = pytest.mark.skipif(
    not HAND.is_file() or not (ROOT / "src/anchorpath/demo/server.py").is_file(),
    reason="demo server / selectors/mfds-dmf.json not available yet",
)


def _as_example(v: Any) -> Any:
    if isinstance(v, list):
        return [str(x) for x in v]
    return None if v is None else str(v)


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
        "--selectors",
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
            vals = {k: [_as_example(r[k]) for r in list_values(chosen)] for k in pt.fields}
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
def test_reauthor_demo_from_examples(tmp_path: Path, demo_pages: DemoPages) -> None:
    hand, list_pages, details = demo_pages.hand, demo_pages.list_pages, demo_pages.details

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
        want = list_values(extract(hand, body, u))
        got = list_values(extract(sf, body, u))
        assert got == want, u
