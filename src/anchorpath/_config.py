"""Settings as frozen dataclasses, with one precedence: defaults < file < env < CLI flags.

A config file is TOML with one table per section (``[fetch]``, ``[paths]``, ``[llm]``,
``[render]``)::

    [fetch]
    contact = "data-team@example.org"
    min_delay = 3.0

Environment variables are ``ANCHORPATH_<SECTION>__<FIELD>`` (``ANCHORPATH_FETCH__MIN_DELAY=3``);
a few common ones also have short spellings (``ANCHORPATH_LLM_BASE_URL``, ``ANCHORPATH_LLM_MODEL``,
``ANCHORPATH_CACHE_DIR``), which the double-underscore spelling overrides when both are set.
API keys are never settings: the LLM client reads them from the environment when it starts.
CLI flags arrive as a ``{"section.field": value}`` mapping. Unknown keys are errors, never ignored:
a typo in a politeness setting must not silently fall back to a default.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from anchorpath._errors import ConfigError

__all__ = [
    "DEFAULT_CONTACT",
    "FetchConfig",
    "LLMConfig",
    "PathsConfig",
    "RenderConfig",
    "Settings",
    "load_settings",
]

#: Placeholder contact; the fetcher warns when it is still set outside the demo.
DEFAULT_CONTACT = "set-your-contact@example.invalid"


@dataclass(frozen=True)
class FetchConfig:
    """Politeness and network-safety knobs (Heritrix-like defaults)."""

    user_agent_product: str = "anchorpath"
    info_url: str = "https://github.com/anchorpath/anchorpath"
    contact: str = DEFAULT_CONTACT
    min_delay: float = 2.0
    delay_factor: float = 5.0
    max_delay: float = 30.0
    max_attempts: int = 3
    backoff_base: float = 1.0
    backoff_cap: float = 60.0
    circuit_429_threshold: int = 3
    global_concurrency: int = 4
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    total_timeout: float = 60.0
    max_response_bytes: int = 10 * 1024 * 1024
    max_decompressed_bytes: int = 20 * 1024 * 1024
    max_redirects: int = 5
    max_url_length: int = 2048
    robots_cache_ttl: float = 24 * 3600.0
    #: fetch robots.txt afresh once per fetcher (one run, one ``run --all`` job) instead of
    #: using a cached copy younger than ``robots_cache_ttl``: each run compares the robots.txt
    #: it was judged by with the last run's (the cache still stands in when it is unreachable)
    robots_per_run: bool = True
    robots_max_bytes: int = 500 * 1024
    allow_private_networks: bool = False
    # Link-local / cloud-metadata addresses or networks fetched anyway (comma-separated);
    # allow_private_networks alone never opens 169.254.169.254.
    allow_link_local: str = ""
    run_deadline: float = 3 * 3600.0
    conditional: bool = True
    #: Media types a page may be served as (a TOML list, or comma-separated in the environment
    #: and on the command line). A page without a Content-Type, or with a generic one
    #: (``application/octet-stream``), is taken when its first bytes are HTML, as a browser
    #: sniffs it; list the generic type here to take any such page.
    accept_content_types: tuple[str, ...] = (
        "text/html",
        "application/xhtml+xml",
        "text/plain",
        "text/xml",
        "application/xml",
        "application/json",
        "application/ld+json",
    )


@dataclass(frozen=True)
class PathsConfig:
    """Where selector files, run state and caches live."""

    selectors_dir: str = "selectors"
    state_dir: str = ".anchorpath/state"
    #: robots.txt and HTTP validator cache shared by runs and ``robots check --fetch``;
    #: empty means ``<state_dir>/cache``.
    cache_dir: str = ""

    def cache_path(self, state_dir: str | Path | None = None) -> Path:
        """``cache_dir`` if set, else ``cache`` inside ``state_dir`` (default: this one's)."""
        if self.cache_dir:
            return Path(self.cache_dir)
        return Path(self.state_dir if state_dir is None else state_dir) / "cache"


#: Tokens of pruned Markdown per page the model reads (``[llm] token_budget``: authoring,
#: repair, the review session) and per page of a drift bundle's ``prompt.md``.
TOKEN_BUDGET = 1500


@dataclass(frozen=True)
class LLMConfig:
    """An OpenAI-compatible endpoint, used by authoring only (never by the runner).

    The API key is not a setting: it is read from ``ANCHORPATH_LLM_API_KEY`` or the variable
    named by ``api_key_env`` when the client starts, and never logged, cached or written.
    ``structured`` is ``auto`` (json_schema, falling back to json_object when the endpoint
    rejects it), ``json_schema`` or ``json_object``. Prices are USD per million tokens, for the
    ledger's cost estimate. ``token_budget`` bounds each seed's pruned Markdown.
    """

    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "gpt-4o-mini"
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 60.0
    max_retries: int = 2
    retry_cap: float = 30.0
    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 2048
    structured: str = "auto"
    token_budget: int = TOKEN_BUDGET
    perturbation_rounds: int = 1
    price_input: float = 0.0
    price_output: float = 0.0


@dataclass(frozen=True)
class RenderConfig:
    """Rendering seed pages with Chromium at authoring time (``author new-site``).

    ``wait_for`` is a CSS selector (or an XPath starting with ``/`` or ``(``) that must be in
    the rendered DOM before a seed is read: the content a script inserts late. Empty: the
    ``load`` event. Runs wait for their page type's anchor instead.
    """

    wait_for: str = ""


@dataclass(frozen=True)
class Settings:
    fetch: FetchConfig = field(default_factory=FetchConfig)
    paths: PathsConfig = field(default_factory=PathsConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    render: RenderConfig = field(default_factory=RenderConfig)


def _coerce(section: str, name: str, target: type[Any] | str, raw: Any, origin: str) -> Any:
    kind = target if isinstance(target, str) else target.__name__
    try:
        if kind == "bool":
            if isinstance(raw, bool):
                return raw
            text = str(raw).strip().lower()
            if text in {"1", "true", "yes", "on"}:
                return True
            if text in {"0", "false", "no", "off"}:
                return False
            raise ValueError(f"not a boolean: {raw!r}")
        if kind == "int":
            if isinstance(raw, bool):
                raise ValueError(f"not an integer: {raw!r}")
            return int(raw)
        if kind == "float":
            if isinstance(raw, bool):
                raise ValueError(f"not a number: {raw!r}")
            return float(raw)
        if kind == "tuple[str, ...]":
            return _media_types(raw)
        return str(raw)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{origin}: {section}.{name}: {exc}") from exc


_MEDIA_TYPE = re.compile(r"^[a-z0-9][a-z0-9!#$&^_.+-]*/[a-z0-9][a-z0-9!#$&^_.+-]*$")


def _media_types(raw: Any) -> tuple[str, ...]:
    """A list of media types from TOML (a list) or the environment / a flag (comma-separated)."""
    items = raw.split(",") if isinstance(raw, str) else raw
    if not isinstance(items, list | tuple) or not all(isinstance(i, str) for i in items):
        raise ValueError(f"expected a list of media types, got {raw!r}")
    out = tuple(dict.fromkeys(i.strip().lower() for i in items if i.strip()))
    bad = [t for t in out if not _MEDIA_TYPE.match(t)]
    if bad:
        raise ValueError(f"not a media type (type/subtype): {bad[0]!r}")
    if not out:
        raise ValueError("no media type given")
    return out


def _apply(settings: Settings, values: Mapping[str, Any], origin: str) -> Settings:
    """Return ``settings`` with ``{"section.field": value}`` applied."""
    sections = {f.name: getattr(settings, f.name) for f in fields(settings)}
    for dotted, raw in values.items():
        section, _, name = dotted.partition(".")
        if section not in sections:
            raise ConfigError(f"{origin}: unknown section {section!r} (in {dotted!r})")
        known = {f.name: f for f in fields(sections[section])}
        if name not in known:
            raise ConfigError(f"{origin}: unknown setting {dotted!r}")
        value = _coerce(section, name, known[name].type, raw, origin)
        sections[section] = replace(sections[section], **{name: value})
    return replace(settings, **sections)


def _read_file(path: Path) -> dict[str, Any]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: config file not found") from exc
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from exc
    flat: dict[str, Any] = {}
    for section, table in data.items():
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: top-level key {section!r} must be a [table]")
        for name, value in table.items():
            flat[f"{section}.{name}"] = value
    return flat


#: Short environment spellings of a few settings (the ``__`` spelling wins when both are set).
ENV_ALIASES = {
    "ANCHORPATH_LLM_BASE_URL": "llm.base_url",
    "ANCHORPATH_LLM_MODEL": "llm.model",
    "ANCHORPATH_CACHE_DIR": "paths.cache_dir",
}


def _read_env(env: Mapping[str, str]) -> dict[str, Any]:
    flat: dict[str, Any] = {dotted: env[key] for key, dotted in ENV_ALIASES.items() if key in env}
    for key, value in env.items():
        if not key.startswith("ANCHORPATH_") or "__" not in key:
            continue
        section, _, name = key[len("ANCHORPATH_") :].partition("__")
        flat[f"{section.lower()}.{name.lower()}"] = value
    return flat


def load_settings(
    config_file: str | os.PathLike[str] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Build the frozen settings: defaults < ``config_file`` < ``env`` < ``overrides``.

    Without ``config_file``, ``ANCHORPATH_CONFIG`` or ``./anchorpath.toml`` (if present) is used.
    """
    env = os.environ if env is None else env
    settings = Settings()
    path: Path | None = None
    if config_file is not None:
        path = Path(config_file)
    elif env.get("ANCHORPATH_CONFIG"):
        path = Path(env["ANCHORPATH_CONFIG"])
    elif Path("anchorpath.toml").is_file():
        path = Path("anchorpath.toml")
    if path is not None:
        settings = _apply(settings, _read_file(path), str(path))
    settings = _apply(settings, _read_env(env), "environment")
    if overrides:
        given = {k: v for k, v in overrides.items() if v is not None}
        settings = _apply(settings, given, "command line")
    return settings
