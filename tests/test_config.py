"""Settings precedence: defaults < file < env < CLI flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorpath._config import load_settings
from anchorpath._errors import ConfigError


def test_precedence(tmp_path: Path) -> None:
    cfg = tmp_path / "anchorpath.toml"
    cfg.write_text('[fetch]\nmin_delay = 3.0\nmax_delay = 40\ncontact = "ops@example.org"\n')
    env = {"ANCHORPATH_FETCH__MAX_DELAY": "50", "ANCHORPATH_FETCH__MAX_ATTEMPTS": "4"}
    s = load_settings(cfg, env=env, overrides={"fetch.max_attempts": 5, "fetch.min_delay": None})
    assert s.fetch.min_delay == 3.0  # file
    assert s.fetch.max_delay == 50.0  # env beats file
    assert s.fetch.max_attempts == 5  # CLI beats env
    assert s.fetch.contact == "ops@example.org"
    assert s.fetch.delay_factor == 5.0  # default


def test_unknown_key_and_bad_value_are_errors(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text("[fetch]\nmin_dealy = 3\n")
    with pytest.raises(ConfigError, match=r"c.toml: unknown setting 'fetch.min_dealy'"):
        load_settings(cfg, env={})
    with pytest.raises(ConfigError, match=r"environment: fetch.min_delay"):
        load_settings(env={"ANCHORPATH_FETCH__MIN_DELAY": "soon"})


def test_settings_are_frozen() -> None:
    s = load_settings(env={})
    with pytest.raises(AttributeError):
        s.fetch.min_delay = 0  # type: ignore[misc]
