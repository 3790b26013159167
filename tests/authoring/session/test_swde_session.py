"""End to end on real third-party pages (read from ../shared, skipped when absent): an SWDE
site authored in the session with field names only, values from the test LLM server answering
from SWDE's ground truth, then checked on the site's other pages."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel
from anchorpath.cli import main
from anchorpath.selectors.evaluate import extract
from anchorpath.selectors.load import load_selector_file

SWDE = Path(__file__).resolve().parents[4] / "shared" / "data" / "swde"
SITE = "book-booksamillion"
FIELDS = ("title", "isbn_13", "publisher")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not (SWDE / "pages" / SITE).is_dir(), reason="../shared SWDE absent"),
]


def _clean(v: str) -> str:
    return re.sub(r"\s+", " ", html.unescape(v)).strip().lstrip(":").strip()


def test_swde_site_end_to_end_in_the_session(tmp_path: Path) -> None:
    gold = json.loads((SWDE / f"{SITE}.json").read_text(encoding="utf-8"))
    files = sorted((SWDE / "pages" / SITE).glob("*.htm"))[:12]
    urls = {}
    for f in files:
        m = re.search(r'<base href="([^"]+)"', f.read_text(encoding="utf-8-sig")[:500])
        assert m
        urls[f.stem] = m.group(1)
    truth = {urls[s]: {k: [_clean(v) for v in gold[s][k]] for k in FIELDS} for s in urls}
    args = ["author", "new-site", "bam", "--selectors", str(tmp_path / "sel"), "--render", "http"]
    args += ["--no-screenshots", *[a for k in FIELDS for a in ("--field", k)]]
    for f in files[:3]:
        args += ["--seed", str(f)]  # the URL comes from the page's <base href>
    with FakeOpenAIServer(TruthModel(truth)) as srv:
        env = srv.cli_env(tmp_path / "cache")
        res = CliRunner().invoke(main, args, input="\n" * 8, env=env)
    assert res.exit_code == 0, res.output
    for k in FIELDS:
        assert f"■ {k} (string)" in res.output
    sf = load_selector_file(tmp_path / "sel" / "bam.json")
    assert set(sf.page_types["detail"].fields) == set(FIELDS) and len(sf.fixtures) == 3
    right = total = 0
    for f in files[3:]:
        (rec,) = extract(sf, f.read_bytes(), urls[f.stem])
        for k in FIELDS:
            total += 1
            right += _clean(str(rec.values.get(k) or "")) == truth[urls[f.stem]][k][0]
    assert right / total >= 0.9, (right, total)
