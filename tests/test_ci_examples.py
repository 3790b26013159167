"""The CI example and the pre-commit hook, run as written.

* ``examples/github-actions/selector-review.yml`` is valid for GitHub (its schema, through
  ``check-jsonschema``: the ``actionlint`` binary cannot be installed here, its PyPI package
  downloads it at build time);
* its shell steps run verbatim with bash in a temporary repository whose ``main`` (the base)
  and pull-request branch (the head) differ in one XPath: the check step fails naming the
  field, the diff step still runs and its Markdown, the PR comment body, is snapshotted;
* its install step runs verbatim in a fresh virtualenv, the GitHub URL redirected by git's
  ``insteadOf`` to a clone of this checkout tagged like a release (slow);
* ``pre-commit try-repo`` runs the hook of ``.pre-commit-hooks.yaml`` on a passing and a
  failing repository (slow);
* the release tag the examples name is the current version's, listed in CHANGELOG.md.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from anchorpath import __version__

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / "examples" / "github-actions" / "selector-review.yml"
HOOKS = REPO / ".pre-commit-hooks.yaml"
SNAPSHOT = Path(__file__).parent / "snapshots" / "selector-review-comment.md"
SITE = "mfds-dmf"
APPLICANT = "/descendant::th[normalize-space()='신청인'][1]/following-sibling::td[1]"
MANUFACTURER = "/descendant::th[normalize-space()='제조소'][1]/following-sibling::td[1]"
GITHUB_URL = "https://github.com/anchorpath/anchorpath"
TAG = f"v{__version__}"

# The installs these tests make (a job's virtualenv, pre-commit's hook environment) skip
# byte-compiling their dependencies, half of their time. pip reads PIP_NO_COMPILE as the value
# of its ``compile`` setting, so 0 means "do not compile".
NO_COMPILE = {"PIP_NO_COMPILE": "0"}

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    full = {**os.environ, **GIT_ENV, "GIT_CONFIG_GLOBAL": os.devnull, **(env or {})}
    return subprocess.run(
        ["git", *args], cwd=cwd, env=full, check=True, capture_output=True, text=True
    ).stdout


def workflow() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    return data


def step(name: str) -> str:
    """The ``run`` script of the step called ``name``, GitHub expressions filled in as for a
    pull request into ``main``."""
    (job,) = workflow()["jobs"].values()
    (script,) = [s["run"] for s in job["steps"] if s.get("name") == name]
    script = script.replace("${{ github.base_ref }}", "main")
    assert "${{" not in script, script
    return str(script)


def run_step(name: str, cwd: Path, bin_dir: Path, tmp: Path, **env: str) -> tuple[int, str]:
    """Run a step's script as GitHub's runner does (``bash --noprofile --norc -eo pipefail``),
    with the workflow's ``env``, ``GITHUB_OUTPUT``/``GITHUB_STEP_SUMMARY`` files and ``bin_dir``
    first on PATH."""
    slug = re.sub(r"\W+", "-", name)
    script = tmp / f"step-{slug}.sh"
    script.write_text(step(name), encoding="utf-8")
    full = {
        **os.environ,
        **GIT_ENV,
        **{k: str(v) for k, v in workflow().get("env", {}).items()},
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_OUTPUT": str(tmp / "github-output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "step-summary.md"),
        **env,
    }
    full.pop("VIRTUAL_ENV", None)
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A repository with the demo selector file on ``main`` (also as ``origin/main``, as
    ``actions/checkout`` with ``fetch-depth: 0`` leaves it) and a ``pr`` branch checked out
    whose head commit points detail.applicant at the 제조소 (manufacturer) row."""
    root = tmp_path / "repo"
    (root / "selectors").mkdir(parents=True)
    shutil.copyfile(REPO / "selectors" / f"{SITE}.json", root / "selectors" / f"{SITE}.json")
    shutil.copytree(REPO / "selectors" / "fixtures" / SITE, root / "selectors" / "fixtures" / SITE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "update-ref", "refs/remotes/origin/main", "main")
    git(root, "checkout", "-q", "-b", "pr")
    path = root / "selectors" / f"{SITE}.json"
    text = path.read_text(encoding="utf-8")
    assert text.count(APPLICANT) == 1
    path.write_text(text.replace(APPLICANT, MANUFACTURER), encoding="utf-8")
    git(root, "commit", "-q", "-am", "head: applicant from another row")
    return root


def test_workflow_is_valid_for_github() -> None:
    exe = Path(sys.executable).parent / "check-jsonschema"
    proc = subprocess.run(
        [str(exe), "--builtin-schema", "vendor.github-workflows", str(WORKFLOW)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_workflow_scripts_and_expressions() -> None:
    """Part of what actionlint checks beyond the schema: every ``run`` script is valid bash
    (GitHub expressions filled in), and every ``steps.ID`` an expression reads is a step id
    defined before it."""
    (job,) = workflow()["jobs"].values()
    ids: list[str] = []
    for s in job["steps"]:
        for text in (
            str(s.get("if", "")),
            str(s.get("run", "")),
            *map(str, (s.get("env") or {}).values()),
        ):
            for ref in re.findall(r"steps\.([\w-]+)\.", text):
                assert ref in ids, (
                    f"step {s.get('name')!r} reads steps.{ref}, defined nowhere before"
                )
        if "run" in s:
            script = re.sub(r"\$\{\{[^}]*\}\}", "x", s["run"])
            proc = subprocess.run(["bash", "-n"], input=script, capture_output=True, text=True)
            assert proc.returncode == 0, f"{s.get('name')}: {proc.stderr}"
        if "id" in s:
            ids.append(s["id"])
    assert "diff" in ids


def test_examples_name_the_current_release_tag() -> None:
    assert workflow()["env"]["ANCHORPATH_REF"] == TAG
    assert f"git+{GITHUB_URL}@${{ANCHORPATH_REF}}" in step("Install anchorpath")
    assert f"rev: {TAG}" in HOOKS.read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert re.findall(r"^\s*rev: (\S+)", readme, re.M) == [TAG]
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(__version__)}\] - \d{{4}}-\d\d-\d\d$", changelog, re.M)
    assert "## [Unreleased]" in changelog


@pytest.mark.slow
@needs_git
def test_workflow_steps_on_a_pull_request(pull_request: Path, tmp_path: Path) -> None:
    bin_dir = Path(sys.executable).parent
    code, out = run_step(
        "Check selector files and golden fixtures", pull_request, bin_dir, tmp_path
    )
    assert code == 1, out
    assert "applicant" in out and "신청인" not in step("Check selector files and golden fixtures")
    code, out = run_step("Diff against the base branch", pull_request, bin_dir, tmp_path)
    assert code == 0, out
    outputs = (tmp_path / "github-output").read_text(encoding="utf-8")
    assert outputs == "differs=true\n"
    comment = (pull_request / "selector-diff.md").read_text(encoding="utf-8")
    assert (tmp_path / "step-summary.md").read_text(encoding="utf-8") == comment
    if os.environ.get("ANCHORPATH_UPDATE_SNAPSHOTS"):
        SNAPSHOT.parent.mkdir(exist_ok=True)
        SNAPSHOT.write_text(comment, encoding="utf-8")
    assert comment == SNAPSHOT.read_text(encoding="utf-8")


@needs_git
def test_workflow_diff_step_says_no_difference(pull_request: Path, tmp_path: Path) -> None:
    git(pull_request, "checkout", "-q", "main")
    code, out = run_step(
        "Diff against the base branch", pull_request, Path(sys.executable).parent, tmp_path
    )
    assert code == 0, out
    assert (tmp_path / "github-output").read_text(encoding="utf-8") == "differs=false\n"


def _release_clone(tmp_path: Path) -> Path:
    """A repository holding this checkout's files as they are (uncommitted changes included),
    its one commit tagged like a release; this checkout's own git data is never touched."""
    clone = tmp_path / "anchorpath-release"
    shutil.copytree(
        REPO,
        clone,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "dist", "build", "__pycache__", ".*_cache", "*.egg-info"
        ),
    )
    git(clone, "init", "-q", "-b", "main")
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "-m", "release")
    git(clone, "tag", TAG)
    return clone


@pytest.mark.slow
@needs_git
def test_install_step_as_written(pull_request: Path, tmp_path: Path) -> None:
    """The install step, verbatim, in a fresh virtualenv: git fetches the GitHub URL from a
    local clone tagged ``vX.Y.Z`` (``url.<clone>.insteadOf``); the check step then runs with
    the anchorpath it installed."""
    clone = _release_clone(tmp_path)
    gitconfig = tmp_path / "gitconfig"
    gitconfig.write_text(
        f'[url "{clone.as_uri()}"]\n\tinsteadOf = {GITHUB_URL}\n', encoding="utf-8"
    )
    env_dir = tmp_path / "job-venv"
    venv.create(env_dir, with_pip=True)
    bin_dir = env_dir / "bin"
    code, out = run_step(
        "Install anchorpath",
        pull_request,
        bin_dir,
        tmp_path,
        GIT_CONFIG_GLOBAL=str(gitconfig),
        **NO_COMPILE,
    )
    assert code == 0, out
    version = subprocess.run(
        [str(bin_dir / "anchorpath"), "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert version.strip() == f"anchorpath, version {__version__}"
    git(pull_request, "checkout", "-q", "main")
    code, out = run_step(
        "Check selector files and golden fixtures", pull_request, bin_dir, tmp_path
    )
    assert code == 0, out
    assert "1 selector file(s) checked, 0 failed" in out


def _try_repo(user_repo: Path, home: Path) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).parent / "pre-commit"
    env = {
        **os.environ,
        **GIT_ENV,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "PRE_COMMIT_HOME": str(home),
        **NO_COMPILE,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [str(exe), "try-repo", str(REPO), "anchorpath-check", "--files", f"selectors/{SITE}.json"],
        cwd=user_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.mark.slow
@needs_git
def test_pre_commit_hook_passes_and_fails(pull_request: Path, tmp_path: Path) -> None:
    """``pre-commit try-repo`` with this checkout's hook: it fails on the head commit (the
    XPath change breaks a golden fixture, named in the output) and passes on the base. Each
    try-repo installs the hook's environment afresh, so the two run side by side."""
    base = tmp_path / "base"
    git(tmp_path, "clone", "-q", "--branch", "main", str(pull_request), str(base))
    with ThreadPoolExecutor(2) as pool:
        head_run = pool.submit(_try_repo, pull_request, tmp_path / "head-home")
        base_run = pool.submit(_try_repo, base, tmp_path / "base-home")
        failed, passed = head_run.result(), base_run.result()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "anchorpath check" in failed.stdout and "Failed" in failed.stdout
    assert "applicant" in failed.stdout
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
