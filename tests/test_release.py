"""A release as users get it: ``python -m build`` (sdist and wheel), ``twine check``, the wheel
installed in a fresh virtualenv (not the editable install), ``anchorpath --version`` and
``anchorpath demo`` run from it. One version source: ``src/anchorpath/_version.py``.

The fresh virtualenv installs the wheel's dependencies through pip's cache (and its configured
indexes): no network beyond the package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from anchorpath import __version__

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_one_version_source() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    hatch = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]
    assert hatch["version"]["path"] == "src/anchorpath/_version.py"
    from importlib.metadata import version

    assert version("anchorpath") == __version__


def test_version_flag() -> None:
    from click.testing import CliRunner

    from anchorpath.cli import main

    res = CliRunner().invoke(main, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"anchorpath, version {__version__}"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANCHORPATH_")}
    env.pop("VIRTUAL_ENV", None)
    return env


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``python -m build`` of a copy of this checkout (the build leaves nothing behind)."""
    src = tmp_path_factory.mktemp("release") / "src"
    shutil.copytree(
        REPO,
        src,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "dist", "build", "__pycache__", ".*_cache", "*.egg-info"
        ),
    )
    out = src.parent / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out


@pytest.mark.slow
def test_build_and_twine_check(dist: Path) -> None:
    names = sorted(p.name for p in dist.iterdir())
    assert names == [
        f"anchorpath-{__version__}-py3-none-any.whl",
        f"anchorpath-{__version__}.tar.gz",
    ]
    proc = subprocess.run(
        [str(BIN / "twine"), "check", "--strict", *(str(p) for p in sorted(dist.iterdir()))],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("PASSED") == 2
    with zipfile.ZipFile(dist / names[0]) as whl:
        files = set(whl.namelist())
    for needed in (
        "anchorpath/py.typed",
        "anchorpath/selectors/schema/selector.v1.json",
        "anchorpath/demo/mfds-dmf.json",
        "anchorpath/demo/fixtures/mfds-dmf/list-1.html",
        "anchorpath/prompts/system.v1.txt",
        "anchorpath/integrations/scrapy.py",
    ):
        assert needed in files, needed
    assert not any(f.startswith(("tests/", "bench/")) for f in files)


@pytest.mark.slow
def test_wheel_installs_in_a_fresh_venv_and_runs_the_demo(dist: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=True)
    py = env_dir / "bin" / "python"
    (wheel,) = dist.glob("*.whl")
    install = subprocess.run(
        # --no-compile: byte-compiling every dependency was half of the install's time
        [str(py), "-m", "pip", "install", "-q", "--no-compile", str(wheel)],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=900,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    exe = env_dir / "bin" / "anchorpath"
    version = subprocess.run(
        [str(exe), "--version"], capture_output=True, text=True, env=_env(), check=True
    )
    assert version.stdout.strip() == f"anchorpath, version {__version__}"
    # Run away from the checkout, so nothing can come from src/ or selectors/ here.
    demo = subprocess.run(
        [str(exe), "demo"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**_env(), "COLUMNS": "120"},
        timeout=600,
    )
    assert demo.returncode == 0, demo.stdout[-4000:] + demo.stderr[-2000:]
    located = subprocess.run(
        [str(py), "-c", "import anchorpath; print(anchorpath.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert located.startswith(str(env_dir)), located
