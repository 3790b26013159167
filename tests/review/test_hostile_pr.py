"""A selector file from an untrusted pull request: what ``check`` and ``diff --git`` may read
and print (issue 25).

The pull request names files outside its fixtures folder (``../.git/config`` where
``actions/checkout`` keeps its token, an absolute path, a symlink to a secret planted outside
the repository, ``/dev/zero``), nests JSON thousands of levels deep, and adds files with odd
names (``site[2].json``, escape sequences). Nothing planted may reach the output, every
refusal is one line, and the example workflow's shell steps post nothing that leaks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from anchorpath.cli import main

from .conftest import SITE, git

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "examples" / "github-actions" / "selector-review.yml"
TOKEN = "ghs_PLANTEDTOKEN0123456789abcdef"
OUTSIDE = "OUTSIDE-SECRET-7f3a9c"
LIST_URL = "http://127.0.0.1:8765/dmf/list.do?page=1"


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), env={"COLUMNS": "200"})


@pytest.fixture
def secrets(repo: Path, tmp_path: Path) -> Path:
    """The token in ``.git/config`` as ``actions/checkout`` writes it, and a secret file
    outside the repository (returned)."""
    with (repo / ".git" / "config").open("a", encoding="utf-8") as f:
        f.write(f'[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic {TOKEN}\n')
    outside = tmp_path / "outside" / "id_rsa"
    outside.parent.mkdir()
    outside.write_text(f"{OUTSIDE}\n", encoding="utf-8")
    return outside


def _selector(repo: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(
        (repo / "selectors" / f"{SITE}.json").read_text(encoding="utf-8")
    )
    return data


def _hostile(repo: Path, page: str) -> dict[str, Any]:
    """The demo file with a field reading the whole page and a fixture naming ``page``."""
    data = _selector(repo)
    data["page_types"]["list"]["fields"]["leak"] = {"xpath": "string(/)", "type": "string"}
    data["fixtures"].insert(
        0,
        {"page": page, "url": LIST_URL, "records": f"fixtures/{SITE}/list-1.records.json"},
    )
    return data


def _write(repo: Path, data: dict[str, Any], name: str = f"{SITE}.json") -> None:
    (repo / "selectors" / name).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


def _inject(repo: Path, html: str) -> None:
    """Put ``html`` (ASCII) into the first list fixture page (EUC-KR bytes)."""
    page = repo / "selectors" / "fixtures" / SITE / "list-1.html"
    body = page.read_bytes()
    page.write_bytes(body.replace(b"</table>", f"<p>{html}</p></table>".encode(), 1))


def _no_leak(*texts: str) -> None:
    for text in texts:
        assert TOKEN not in text and OUTSIDE not in text
        assert "extraheader" not in text


@pytest.mark.parametrize("page", ["../.git/config", "fixtures/../../.git/config", "ABSOLUTE"])
def test_a_fixture_outside_the_fixtures_folder_is_refused_and_never_read(
    repo: Path, secrets: Path, page: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    _write(repo, _hostile(repo, str(secrets) if page == "ABSOLUTE" else page))
    res = cli("validate", f"selectors/{SITE}.json")
    assert res.exit_code == 1
    (line,) = res.stderr.splitlines()
    assert f"selectors/{SITE}.json:/fixtures/0/page: path " in line
    assert "a selector file names only files inside the fixtures/ folder next to it" in line
    checked = cli("check", "selectors/")
    assert checked.exit_code == 1 and "/fixtures/0/page: path" in checked.stdout
    diffed = cli("diff", "--git", "main", "--format", "md")
    assert diffed.exit_code == 2 and diffed.stdout == ""
    assert "/fixtures/0/page: path" in diffed.stderr
    _no_leak(res.output, checked.output, diffed.output)


def test_a_symlink_out_of_the_fixtures_folder_is_refused(
    repo: Path, secrets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    (repo / "selectors" / "fixtures" / SITE / "leak.html").symlink_to(secrets)
    (repo / "selectors" / "fixtures" / SITE / "zero.html").symlink_to("/dev/zero")
    data = _hostile(repo, f"fixtures/{SITE}/leak.html")
    data["fixtures"].insert(0, {"page": f"fixtures/{SITE}/zero.html", "url": LIST_URL})
    _write(repo, data)
    res = cli("check", "selectors/")
    assert res.exit_code == 1
    assert "/fixtures/0/page: path fixtures/mfds-dmf/zero.html resolves outside" in res.stdout
    assert "/fixtures/1/page: path fixtures/mfds-dmf/leak.html resolves outside" in res.stdout
    diffed = cli("diff", "--git", "main", "--format", "md")
    assert diffed.exit_code == 2 and "resolves outside the fixtures/ folder" in diffed.stderr
    _no_leak(res.output, diffed.output)


def test_a_symlinked_fixtures_folder_is_refused(
    repo: Path, secrets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    shutil.rmtree(repo / "selectors" / "fixtures")
    (repo / "selectors" / "fixtures").symlink_to(secrets.parent, target_is_directory=True)
    _write(repo, _hostile(repo, "fixtures/id_rsa"))
    res = cli("check", "selectors/")
    assert res.exit_code == 1 and "resolves outside the fixtures/ folder" in res.stdout
    _no_leak(res.output)


def test_a_failure_line_repeats_a_short_escaped_excerpt_only(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A fixture inside the folder whose value is long and full of escape sequences.
    monkeypatch.chdir(repo)
    _inject(repo, "\x1b]0;pwned\x07\x1b[2J" + "A" * 5000 + "&#x202e;")
    data = _selector(repo)
    data["page_types"]["list"]["fields"]["whole"] = {"xpath": "string(/)", "type": "string"}
    _write(repo, data)
    res = cli("check", "selectors/")
    assert res.exit_code == 1
    assert "\x1b" not in res.stdout and "\x07" not in res.stdout and "\u202e" not in res.stdout
    line = next(x for x in res.stdout.splitlines() if "list-1.html" in x and "whole" not in x)
    assert len(line) < 400 and "… (+" in line


def test_deep_json_is_one_line_in_every_command(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    text = (repo / "selectors" / f"{SITE}.json").read_text(encoding="utf-8").rstrip()
    deep = text[:-1] + ', "baseline": ' + "[" * 2000 + "]" * 2000 + "}"
    (repo / "selectors" / f"{SITE}.json").write_text(deep, encoding="utf-8")
    want = f"selectors/{SITE}.json: JSON nested deeper than 64 levels"
    page = str(repo / "selectors" / "fixtures" / SITE / "list-1.html")
    for args, code in [
        (["validate", f"selectors/{SITE}.json"], 1),
        (["check", "selectors/"], 1),
        (["diff", "--git", "main"], 2),
        (["diff", "--git", "main", "--format", "md"], 2),
        (["extract", "-s", f"selectors/{SITE}.json", "--url", LIST_URL, page], 1),
        (["run", f"selectors/{SITE}.json", "--state", str(repo.parent / "state")], 1),
    ]:
        res = cli(*args)
        assert res.exit_code == code, (args, res.output)
        assert want in res.output, (args, res.output)
        assert not isinstance(res.exception, RecursionError)
        assert "Traceback" not in res.output


def test_deep_or_huge_values_where_the_schema_wants_a_string_are_one_short_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 900 levels parse, but jsonschema would walk and repeat them; a 100 KB id is repeated.
    monkeypatch.chdir(repo)
    text = (repo / "selectors" / f"{SITE}.json").read_text(encoding="utf-8")
    for value, want in [
        ("[" * 900 + "]" * 900, "JSON nested deeper than 64 levels"),
        ('"' + "x" * 100_000 + '"', "is too long"),
    ]:
        bad = text.replace(f'"id": "{SITE}"', f'"id": {value}', 1)
        (repo / "selectors" / f"{SITE}.json").write_text(bad, encoding="utf-8")
        res = cli("validate", f"selectors/{SITE}.json")
        assert res.exit_code == 1 and want in res.stderr
        assert len(res.stderr) < 600 and "Traceback" not in res.output


def test_odd_file_names_work_and_are_quoted(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(repo)
    data = _selector(repo)
    data["site"]["id"] = "site2"
    _write(repo, data, "site[2].json")
    _write(repo, dict(data, site={**data["site"], "id": "site3"}), "odd\x1b]0;t\x07name.json")
    res = cli("diff", "--git", "main")
    assert res.exit_code == 1, res.output
    assert "selectors/site[2].json" in res.stdout
    assert '"selectors/odd\\x1b]0;t\\x07name.json"' in res.stdout
    assert "\x1b" not in res.output and "\x07" not in res.output
    named = cli("diff", "--git", "main", "selectors/site[2].json", "--format", "json")
    assert named.exit_code == 1, named.output
    (only,) = json.loads(named.stdout)["files"]
    assert only["site"] == "site2"
    checked = cli("check", "selectors/")
    assert "\x1b" not in checked.output and "\x07" not in checked.output


def test_names_inside_a_file_reach_no_terminal_raw(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo)
    data = _selector(repo)
    data["page_types"]["list"]["fields"]["whole"] = {"xpath": "string(/)", "type": "string"}
    data["page_types"]["evil\x1b]0;t\x07\x1b[2J"] = data["page_types"].pop("detail")
    _write(repo, data)
    for args in (["diff", "--git", "main"], ["check", "selectors/"], ["validate", "selectors/"]):
        res = cli(*args)
        assert "\x1b" not in res.output and "\x07" not in res.output, args


# -- the example workflow, step by step, on a malicious branch ---------------------------------


def _shell_steps(workflow: str) -> dict[str, str]:
    """``name -> run script`` of the workflow's steps (the block scalars and one-liners)."""
    steps: dict[str, str] = {}
    lines = workflow.splitlines()
    name = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if m := re.match(r"\s*- name: (.+)", line):
            name = m.group(1).strip()
        elif (m := re.match(r"(\s*)run: (.*)", line)) and name:
            indent, rest = len(m.group(1)), m.group(2)
            if rest.strip() in ("|", ">"):
                body = []
                i += 1
                while i < len(lines) and (not lines[i].strip() or _indent(lines[i]) > indent):
                    body.append(lines[i][indent + 2 :])
                    i += 1
                steps[name] = "\n".join(body).strip() + "\n"
                continue
            steps[name] = rest.split(" #")[0].strip() + "\n"
        i += 1
    return steps


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


@pytest.mark.slow
def test_the_example_workflow_leaks_nothing_from_a_malicious_branch(
    repo: Path, secrets: Path, tmp_path: Path
) -> None:
    steps = _shell_steps(WORKFLOW.read_text(encoding="utf-8"))
    check_step = steps["Check selector files and golden fixtures"]
    diff_step = steps["Diff against the base branch"]
    assert "anchorpath check" in check_step and "anchorpath diff --git" in diff_step
    diff_step = diff_step.replace("${{ github.base_ref }}", "main")
    assert "${{" not in check_step + diff_step
    bin_dir = str(Path(sys.executable).parent)
    if not (Path(bin_dir) / "anchorpath").exists():
        pytest.skip("the anchorpath console script is not installed beside this Python")

    def run_steps(branch: str) -> tuple[str, str, str]:
        """Check out ``branch`` and run the two shell steps as GitHub runs them (bash -e);
        returns the job log, the comment body and the job summary."""
        git(repo, "checkout", "-q", branch)
        summary, output = tmp_path / f"summary-{branch}", tmp_path / f"output-{branch}"
        env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_OUTPUT": str(output),
            "GIT_CONFIG_GLOBAL": os.devnull,
        }
        log = ""
        for script in (check_step, diff_step):
            proc = subprocess.run(
                ["bash", "-e", "-c", script],
                cwd=repo,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            log += proc.stdout + proc.stderr
        body = (repo / "selector-diff.md").read_text(encoding="utf-8")
        (repo / "selector-diff.md").unlink()
        posted = summary.read_text(encoding="utf-8") if summary.exists() else ""
        return log, body, posted

    git(repo, "update-ref", "refs/remotes/origin/main", "main")  # as actions/checkout leaves it
    # 1. Reading out of the folder: refused, the step fails, nothing is posted.
    git(repo, "checkout", "-q", "-b", "evil")
    _write(repo, _hostile(repo, "../.git/config"))
    (repo / "selectors" / "fixtures" / SITE / "leak.html").symlink_to(secrets)
    _write(repo, _hostile(repo, f"fixtures/{SITE}/leak.html"), "other.json")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "evil")
    log, body, posted = run_steps("evil")
    _no_leak(log, body, posted)
    assert "fixtures/ folder" in log and "origin/main" not in log
    assert body == "" and posted == ""

    # 2. A branch that does produce a comment: odd names, escapes in values, a bomb of a
    # value; the comment body carries none of it raw.
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", "noisy")
    _inject(repo, "\x1b]0;pwned\x07 wrote /etc/cron.d/x\n" + "B" * 3000)
    data = _selector(repo)
    data["page_types"]["list"]["fields"]["whole"] = {"xpath": "string(/)", "type": "string"}
    _write(repo, data)
    _write(repo, dict(data, site={**data["site"], "id": "site2"}), "site[2].json")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "noisy")
    log, body, posted = run_steps("noisy")
    _no_leak(log, body, posted)
    assert "site[2].json" in body and body in posted, log
    for text in (log, body):
        assert "\x1b" not in text and "\x07" not in text
        assert "B" * 200 not in text
