"""``anchorpath demo`` and ``anchorpath demo serve``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import urllib.request

from click.testing import CliRunner

from anchorpath.cli import main


def test_demo_group_help() -> None:
    res = CliRunner().invoke(main, ["demo", "--help"])
    assert res.exit_code == 0 and "serve" in res.output and "Examples:" in res.output
    res = CliRunner().invoke(main, ["demo", "serve", "--help"])
    assert res.exit_code == 0 and "--day" in res.output and "--mode" in res.output


def test_demo_serve_usage_errors() -> None:
    assert CliRunner().invoke(main, ["demo", "serve", "--day", "0"]).exit_code == 2
    assert CliRunner().invoke(main, ["demo", "serve", "--mode", "weird"]).exit_code == 2


def test_demo_serve_until_ctrl_c() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "anchorpath", "demo", "serve", "--day", "2", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        header = proc.stdout.readline()
        assert "day 2" in header
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/dmf/list.do?page=1")
        with urllib.request.urlopen(url, timeout=10) as resp:
            assert resp.status == 200
            assert "원료의약품" in resp.read().decode("cp949")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    assert "Stopped." in out
    assert "Traceback" not in err
