"""``anchorpath run --all`` and ``anchorpath replay`` from the command line."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.demo import DemoServer, write_site_file

FAST = {
    "ANCHORPATH_FETCH__MIN_DELAY": "0",
    "ANCHORPATH_FETCH__DELAY_FACTOR": "0",
    "ANCHORPATH_FETCH__ALLOW_PRIVATE_NETWORKS": "1",
    "ANCHORPATH_FETCH__CONTACT": "tests@anchorpath.invalid",
}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run"], "missing SITE"),
        (["run", "a", "b"], "exactly one SITE"),
        (["run", "--all", "--url", "http://x/"], "--url cannot be combined with --all"),
        (["run", "site", "--workers", "2"], "only apply to --all"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and message in result.output


def test_bad_executor_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["run", "--all", "--selectors", str(tmp_path), "--executor", "ray://x"]
    )
    assert result.exit_code == 1
    assert "expected 'local', 'local:N' or 'dask://HOST:PORT'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.slow
def test_run_all_then_replay(tmp_path: Path) -> None:
    sel, state = tmp_path / "selectors", tmp_path / "state"
    runner = CliRunner()
    with DemoServer(day=1) as a, DemoServer(day=1) as b:
        write_site_file(sel, a.base_url, site_id="dmf-a")
        write_site_file(sel, b.base_url, site_id="dmf-b", max_pages=8)
        result = runner.invoke(
            main,
            ["run", "--all", "--selectors", str(sel), "--state", str(state), "-q"],
            env=FAST,
        )
    assert result.exit_code == 0, result.output
    assert "dmf-a" in result.output and "dmf-b" in result.output
    assert "2 site(s), 2 origin group(s)" in result.output
    replayed = runner.invoke(
        main, ["replay", "dmf-b", "--selectors", str(sel), "--state", str(state), "-q"], env=FAST
    )
    assert replayed.exit_code == 0, replayed.output
    assert "into scratch" in replayed.output and "replays/dmf-b" in replayed.output
    refused = runner.invoke(
        main,
        [
            "replay",
            "dmf-b",
            "--selectors",
            str(sel),
            "--state",
            str(state),
            "--since",
            "2999-01-01",
        ],
        env=FAST,
    )
    assert refused.exit_code == 1 and "no archived run to replay" in refused.output
