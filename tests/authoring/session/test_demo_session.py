"""The demo site authored end to end in the session with field names only (values from the
test LLM server answering from the demo's golden records), and ``author edit`` adding a field
to the demo file as version N+1 with fixtures."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.authoring.llm.testing import FakeOpenAIServer, TruthModel
from anchorpath.cli import main
from anchorpath.review.check import check_file
from anchorpath.selectors.load import load_selector_file

REPO = Path(__file__).resolve().parents[3]
SELECTORS = REPO / "selectors"
FIELDS = ("reg_no", "ingredient", "applicant", "country", "registered_on")


def _detail_fixtures() -> list[dict[str, str]]:
    sf = json.loads((SELECTORS / "mfds-dmf.json").read_text(encoding="utf-8"))
    return [f for f in sf["fixtures"] if "/view" in f["page"]]


@pytest.mark.slow
def test_demo_detail_pages_in_the_session_with_field_names_only(tmp_path: Path) -> None:
    fixtures = _detail_fixtures()
    truth = {}
    for f in fixtures:
        (rec,) = json.loads((SELECTORS / f["records"]).read_text(encoding="utf-8"))
        truth[f["url"]] = {k: [str(rec[k])] for k in FIELDS}
    args = ["author", "new-site", "dmf", "--selectors", str(tmp_path / "sel"), "--render", "http"]
    args += [a for k in FIELDS for a in ("--field", k)] + ["--required", "reg_no"]
    for f in fixtures[:3]:
        args += ["--seed", str(SELECTORS / f["page"]), "--seed-url", f["url"]]
    with FakeOpenAIServer(TruthModel(truth)) as srv:
        env = srv.cli_env(tmp_path / "cache")
        res = CliRunner().invoke(main, [*args, "--no-screenshots"], input="\n" * 10, env=env)
    assert res.exit_code == 0, res.output
    sf = load_selector_file(tmp_path / "sel" / "dmf.json")
    assert list(sf.page_types["detail"].fields) == list(FIELDS) and sf.key == ("reg_no",)
    assert check_file(tmp_path / "sel" / "dmf.json").ok
    hand = load_selector_file(SELECTORS / "mfds-dmf.json")
    from anchorpath.selectors.evaluate import extract

    for f in fixtures[3:]:
        body = (SELECTORS / f["page"]).read_bytes()
        (want,) = extract(hand, body, f["url"])
        (got,) = extract(sf, body, f["url"])
        assert {k: got.values[k] for k in FIELDS} == {k: want.values[k] for k in FIELDS}


def test_author_edit_adds_a_field_to_the_demo_file_as_n_plus_1(tmp_path: Path) -> None:
    selectors = tmp_path / "selectors"
    selectors.mkdir()
    shutil.copyfile(SELECTORS / "mfds-dmf.json", selectors / "mfds-dmf.json")
    shutil.copytree(SELECTORS / "fixtures" / "mfds-dmf", selectors / "fixtures" / "mfds-dmf")
    fixtures = _detail_fixtures()[:3]
    examples = {}
    for f in fixtures:  # the page's 게시일 (posted date), a field the demo file lacks
        html = (selectors / f["page"]).read_bytes().decode("cp949")
        m = re.search(r"게시일\s*(?:<[^>]+>\s*)*([0-9-]{10})", html)
        assert m
        examples[f["url"]] = {"posted_on": m.group(1)}
    (tmp_path / "posted.json").write_text(json.dumps(examples), encoding="utf-8")
    n_fields = len(load_selector_file(selectors / "mfds-dmf.json").page_types["detail"].fields)
    answers = "\n" * n_fields + "+ posted_on:date\n\nw\n"
    args = ["author", "edit", "mfds-dmf", "--selectors", str(selectors), "--page-type", "detail"]
    args += ["--examples", str(tmp_path / "posted.json"), "--no-screenshots"]
    res = CliRunner().invoke(main, args, input=answers)
    assert res.exit_code == 0, res.output
    assert "posted_on: values from examples" in res.output
    sf = load_selector_file(selectors / "mfds-dmf.json")
    assert (sf.version, sf.parent_version) == (2, 1)
    assert (selectors / ".history" / "mfds-dmf" / "v1.json").is_file()
    assert "posted_on" in sf.page_types["detail"].fields
    assert len(sf.fixtures) == 26  # the same snapshots, their expected records extended
    first = json.loads((selectors / fixtures[0]["records"]).read_text(encoding="utf-8"))
    assert first[0]["posted_on"] == examples[fixtures[0]["url"]]["posted_on"]
    assert check_file(selectors / "mfds-dmf.json").ok
