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


def test_llm_settings_and_short_env_spellings(tmp_path: Path) -> None:
    cfg = tmp_path / "a.toml"
    cfg.write_text('[llm]\nmodel = "qwen2.5-7b"\ntoken_budget = 1500\nprice_input = 0.15\n')
    env = {
        "ANCHORPATH_LLM_BASE_URL": "http://127.0.0.1:8080/v1",
        "ANCHORPATH_CACHE_DIR": "/tmp/c",
        "ANCHORPATH_LLM_MODEL": "llama-3.1-8b",
        "OPENAI_API_KEY": "sk-x",
    }
    s = load_settings(cfg, env=env)
    assert s.llm.base_url == "http://127.0.0.1:8080/v1" and s.paths.cache_dir == "/tmp/c"
    assert s.llm.model == "llama-3.1-8b"  # env beats file
    assert s.llm.token_budget == 1500 and s.llm.price_input == 0.15 and s.llm.temperature == 0.0
    assert "sk-x" not in repr(s)  # keys are never settings
    both = load_settings(env={**env, "ANCHORPATH_LLM__MODEL": "m2"})
    assert both.llm.model == "m2"  # the __ spelling wins


def test_render_wait_for_from_file_env_and_flag(tmp_path: Path) -> None:
    cfg = tmp_path / "a.toml"
    cfg.write_text('[render]\nwait_for = "#price"\n', encoding="utf-8")
    assert load_settings(cfg, env={}).render.wait_for == "#price"
    env = {"ANCHORPATH_RENDER__WAIT_FOR": ".late"}
    assert load_settings(cfg, env=env).render.wait_for == ".late"
    flag = {"render.wait_for": "//p[@id='x']"}
    assert load_settings(cfg, env=env, overrides=flag).render.wait_for == "//p[@id='x']"


def test_accept_content_types_from_file_env_and_flag(tmp_path: Path) -> None:
    cfg = tmp_path / "a.toml"
    cfg.write_text('[fetch]\naccept_content_types = ["text/html", "Application/Octet-Stream"]\n')
    assert "application/xhtml+xml" in load_settings(env={}).fetch.accept_content_types
    from_file = load_settings(cfg, env={}).fetch.accept_content_types
    assert from_file == ("text/html", "application/octet-stream")
    env = {"ANCHORPATH_FETCH__ACCEPT_CONTENT_TYPES": "text/html, text/csv"}
    assert load_settings(cfg, env=env).fetch.accept_content_types == ("text/html", "text/csv")
    flag = {"fetch.accept_content_types": ["application/rss+xml"]}
    s = load_settings(cfg, env=env, overrides=flag)
    assert s.fetch.accept_content_types == ("application/rss+xml",)
    with pytest.raises(ConfigError, match=r"fetch.accept_content_types: not a media type"):
        load_settings(env={"ANCHORPATH_FETCH__ACCEPT_CONTENT_TYPES": "html"})
    cfg.write_text("[fetch]\naccept_content_types = 3\n")
    with pytest.raises(ConfigError, match=r"a.toml: fetch.accept_content_types: expected a list"):
        load_settings(cfg, env={})
