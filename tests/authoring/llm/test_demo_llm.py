"""Acceptance on the demo site: seeds fetched politely and rendered by Debian Chromium,
fields named only, values from the test server (answering from the hand-written selector
file's records, as a careful model would from the page) — the authored file extracts what the
hand-written (and the ``--examples``-authored) file extracts on held-out pages."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest
from click.testing import CliRunner

from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel
from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract, parse_html
from anchorpath.selectors.load import load_selector_file

from ..conftest import DemoPages, list_values

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian chromium not installed"),
]


def _strs(v: Any) -> list[str]:
    if v is None:
        return []
    return [str(x) for x in v] if isinstance(v, list) else [str(v)]


def test_demo_site_field_names_only(tmp_path: Path, demo_pages: DemoPages) -> None:
    hand, list_pages, details = demo_pages.hand, demo_pages.list_pages, demo_pages.details[:8]
    detail_pt = next(n for n, pt in hand.page_types.items() if not pt.record_root)
    list_pt = next(n for n, pt in hand.page_types.items() if pt.record_root and pt.fields)

    truth: dict[str, dict[str, list[str]]] = {}
    for u, body in details[:3]:
        rec = extract(hand, body, u)[0].values
        truth[u] = {k: _strs(v) for k, v in rec.items()}
    for u, body in list_pages[:3]:
        recs = list_values(extract(hand, body, u))
        truth[u] = {k: [str(r[k]) for r in recs if r[k] is not None] for k in recs[0]}
        # a model copies links as the page writes them (relative), not resolved
        hrefs = parse_html(body).xpath("//a/@href")
        rel = {urljoin(u, str(h)): str(h) for h in hrefs}
        truth[u]["detail_url"] = [rel.get(v, v) for v in truth[u]["detail_url"]]
    env = {
        "ANCHORPATH_CACHE_DIR": str(tmp_path / "cache"),
        "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
        "ANCHORPATH_FETCH__MIN_DELAY": "0.05",
        "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
        "ANCHORPATH_FETCH__CONTACT": "tests@example.org",
    }
    with FakeOpenAIServer(TruthModel(truth)) as llm:
        env["ANCHORPATH_LLM_BASE_URL"] = llm.base_url
        out = tmp_path / "out"
        for name, pt_name, seeds in (
            ("dmf-detail", detail_pt, [u for u, _ in details[:3]]),
            ("dmf-list", list_pt, [u for u, _ in list_pages[:3]]),
        ):
            pt = hand.page_types[pt_name]
            args = ["author", "new-site", name, "--yes", "--selectors", str(out), "--render",
                    "browser", "--page-type", pt_name, "--match", pt.match]  # fmt: skip
            for s in seeds:
                args += ["--seed", s]
            for fname, spec in pt.fields.items():
                args += ["--field", f"{fname}:{spec.type}"]
            # status is 정상 on all three seeds, a constant kept under --yes because the page
            # names it: <span class="stat …"> ("stat" starts "status"; the label 상태 does not)
            res = CliRunner().invoke(main, args, env=env)
            assert res.exit_code == 0, res.output
            assert "LLM: 0 LLM call(s)" not in res.output
            if name == "dmf-detail":
                assert "'status': the same value on every seed, kept: the page names it" in (
                    res.output
                )
    sf = load_selector_file(out / "dmf-detail.json")
    assert sf.provenance.method == "llm"
    for seed in sf.provenance.seeds:  # rendered DOM and a full-page screenshot kept
        assert seed.snapshot and (out / seed.snapshot).is_file()
        png = (out / seed.snapshot).with_suffix(".png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for u, body in details[3:]:
        assert [r.values for r in extract(sf, body, u)] == [
            r.values for r in extract(hand, body, u)
        ], u
    sf = load_selector_file(out / "dmf-list.json")
    assert sf.page_types[list_pt].record_root
    for u, body in list_pages:
        assert list_values(extract(sf, body, u)) == list_values(extract(hand, body, u)), u
