"""``anchorpath diff`` and ``anchorpath check`` end to end, in a temporary git repository.

Pointing one field's XPath at another label (detail.applicant at the 제조소 row) must give a
diff naming that field with its replayed value changes, in text, Markdown (snapshot) and JSON;
``check`` must fail naming the field, and pass on the untouched files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from anchorpath.cli import main

REPO = Path(__file__).resolve().parents[2]
SITE = "mfds-dmf"
SNAPSHOTS = Path(__file__).parent / "snapshots"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})


def test_project_selectors_pass_check() -> None:
    # The project's own CI: `anchorpath check selectors/` (run by the test suite).
    res = cli("check", str(REPO / "selectors"))
    assert res.exit_code == 0, res.output
    assert "1 selector file(s) checked, 0 failed" in res.stdout


def test_check_passes_on_untouched_files(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    res = cli("check")  # default: the selectors directory
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith(f"ok   selectors/{SITE}.json: {SITE} v1, 26 fixture pages")


def test_check_fails_naming_the_broken_field(changed: Path) -> None:
    res = cli("check", "selectors/")
    assert res.exit_code == 1
    out = res.stdout
    assert f"FAIL selectors/{SITE}.json" in out
    assert "detail.applicant: 24 failure(s)" in out
    assert (
        'fixtures/mfds-dmf/view-su2383-6-ND.html [수2383-6-ND]: expected "청림제약(주)", '
        'got "Synthélia Pharma SAS"'
    ) in out
    assert "detail.manufacturer" not in out and "list.applicant" not in out


def test_check_json_lists_field_expected_and_got(changed: Path) -> None:
    res = cli("check", "--format", "json")
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    problems = data["files"][0]["problems"]
    assert {(p["page_type"], p["field"]) for p in problems} == {("detail", "applicant")}
    first = problems[0]
    assert (first["expected"], first["got"], first["record"]) == (
        "청림제약(주)",
        "Synthélia Pharma SAS",
        "수2383-6-ND",
    )


def test_check_reports_schema_and_xpath_errors(tmp_path: Path) -> None:
    data = json.loads((REPO / "selectors" / f"{SITE}.json").read_text(encoding="utf-8"))
    data["fixtures"] = []
    data["page_types"]["detail"]["fields"]["status"]["xpath"] = "//td[("
    data["page_types"]["detail"]["fields"]["country"]["type"] = "text"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    res = cli("check", str(bad))
    assert res.exit_code == 1
    assert (
        "/page_types/detail/fields/status/xpath: XPath syntax error in field 'status'" in res.stdout
    )
    assert "unknown field type 'text'" in res.stdout
    assert "Traceback" not in res.output


def test_check_missing_fixture_page_is_a_failure(repo: Path) -> None:
    (repo / "selectors" / "fixtures" / SITE / "list-1.html").unlink()
    res = cli("check", str(repo / "selectors"))
    assert res.exit_code == 1
    assert "fixture page fixtures/mfds-dmf/list-1.html cannot be read" in res.stdout


def test_check_without_selector_files_is_an_error(tmp_path: Path) -> None:
    res = cli("check", str(tmp_path))
    assert res.exit_code == 2
    assert res.stderr.strip() == f"Error: no selector files (*.json) in {tmp_path}"


def test_diff_git_text_names_field_and_values(changed: Path) -> None:
    res = cli("diff", "--git", "main")
    assert res.exit_code == 1, res.output
    out = res.stdout
    assert "anchorpath diff: main → working tree" in out
    assert (
        "~ detail.applicant  xpath · 24 changed, 0 appeared, 0 disappeared (of 24 records)" in out
    )
    assert "1 field changed; replayed on 26 pages of the golden fixtures" in out
    assert "records list 20 → 20, detail 24 → 24" in out
    assert 'changed     수2383-6-ND: "청림제약(주)" → "Synthélia Pharma SAS"' in out
    assert "… 21 more changed" in out
    assert "detail.manufacturer" not in out


def test_diff_git_markdown_snapshot(changed: Path) -> None:
    res = cli("diff", "--git", "main", "--format", "md")
    assert res.exit_code == 1, res.output
    snapshot = SNAPSHOTS / "xpath_to_other_label.md"
    if os.environ.get("ANCHORPATH_UPDATE_SNAPSHOTS"):
        snapshot.write_text(res.stdout, encoding="utf-8")
    assert res.stdout == snapshot.read_text(encoding="utf-8")


def test_diff_git_json(changed: Path) -> None:
    res = cli("diff", "--git", "main", "--format", "json")
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert data["differs"] is True
    (fd,) = data["files"]
    assert (fd["site"], fd["path"], fd["status"]) == (SITE, f"selectors/{SITE}.json", "changed")
    assert fd["replayed_on"] == [{"kind": "fixtures", "label": "golden fixtures", "pages": 26}]
    fields = {
        (p["page_type"], f["field"]): f
        for p in fd["page_types"]
        for f in p["fields"]
        if f["status"] != "unchanged" or f["replay"]["changed"]["count"]
    }
    assert list(fields) == [("detail", "applicant")]
    f = fields["detail", "applicant"]
    assert [c["setting"] for c in f["changes"]] == ["xpath"]
    assert f["replay"]["changed"]["count"] == 24
    assert f["replay"]["changed"]["examples"][0] == {
        "url": "http://127.0.0.1:8765/dmf/view.do?regNo=%EC%88%982383-6-ND",
        "record": "수2383-6-ND",
        "old": "청림제약(주)",
        "new": "Synthélia Pharma SAS",
    }
    counts = {p["page_type"]: p["records"] for p in fd["page_types"]}
    assert counts["detail"] == {"old": 24, "new": 24, "delta": 0}


def test_diff_git_without_changes_exits_0(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    res = cli("diff", "--git", "main", "--format", "md")
    assert res.exit_code == 0, res.output
    assert "No difference in what the selector files collect." in res.stdout


def test_diff_git_only_baseline_changed_exits_0(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    path = repo / "selectors" / f"{SITE}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["provenance"]["notes"] = "edited notes"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    res = cli("diff", "--git", "main")
    assert res.exit_code == 0, res.output
    assert 'metadata: provenance.notes: "Hand-written' in res.stdout


def test_diff_files_and_new_file_in_git(changed: Path) -> None:
    res = cli("diff", "--git", "main", "selectors/", "--format", "json")
    assert res.exit_code == 1
    # An untracked new selector file shows up as added; golden records JSON does not.
    other = json.loads((changed / "selectors" / f"{SITE}.json").read_text(encoding="utf-8"))
    other["site"]["id"] = "other"
    (changed / "selectors" / "other.json").write_text(json.dumps(other), encoding="utf-8")
    res = cli("diff", "--git", "main", "--format", "json")
    files = {f["site"]: f["status"] for f in json.loads(res.stdout)["files"]}
    assert files == {SITE: "changed", "other": "added"}


def test_diff_two_files(changed: Path) -> None:
    old = changed / "old.json"
    old.write_bytes((REPO / "selectors" / f"{SITE}.json").read_bytes())
    res = cli("diff", str(old), f"selectors/{SITE}.json")
    assert res.exit_code == 1
    assert "detail.applicant" in res.stdout
    res = cli("diff", f"selectors/{SITE}.json", f"selectors/{SITE}.json")
    assert res.exit_code == 0
    assert "no difference in what is collected" in res.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["diff", "--git", "no-such-ref"], "Error: git: unknown revision 'no-such-ref'"),
        (["diff", "mfds-dmf@7", "mfds-dmf"], "Error: selectors/mfds-dmf.json: version 7 not found"),
        (
            ["diff", "missing/old.json", "mfds-dmf"],
            "Error: missing/old.json: no such selector file",
        ),
        (
            ["diff", "--git", "main", "--state", "no-state"],
            "Error: no-state: no such state directory",
        ),
        (
            ["diff", "nosite@1", "mfds-dmf"],
            "Error: selectors/nosite.json: no selector file for site 'nosite'",
        ),
    ],
)
def test_diff_errors_are_one_line_exit_2(changed: Path, args: list[str], message: str) -> None:
    res = cli(*args)
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith(message), res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_diff_git_outside_a_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "selectors").mkdir()
    res = cli("diff", "--git", "main")
    assert res.exit_code == 2
    assert "not a git repository" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def test_diff_needs_two_versions() -> None:
    res = cli("diff", "only-one.json")
    assert res.exit_code == 2
    assert "give OLD and NEW" in res.stderr


def test_ecosystem_files_run_check_and_diff() -> None:
    workflow = (REPO / "examples" / "github-actions" / "selector-review.yml").read_text(
        encoding="utf-8"
    )
    assert "anchorpath check selectors/" in workflow
    assert 'anchorpath diff --git "origin/${{ github.base_ref }}"' in workflow
    assert "--format md" in workflow and "gh pr comment" in workflow
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert "- id: anchorpath-check" in hooks and "entry: anchorpath check" in hooks
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "examples/github-actions/selector-review.yml" in readme
    assert ".pre-commit-hooks.yaml" in readme and "id: anchorpath-check" in readme
