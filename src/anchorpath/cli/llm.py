"""``anchorpath llm check``: try the configured LLM endpoint before authoring with it."""

from __future__ import annotations

from pathlib import Path

import click

from anchorpath._config import load_settings
from anchorpath._errors import AnchorpathError
from anchorpath._text import terminal_safe
from anchorpath.cli.options import config_option

__all__ = ["COMMANDS", "llm_group"]


@click.group("llm")
def llm_group() -> None:
    """The LLM endpoint authoring may use (never `run`).

    \b
    Examples:
      anchorpath llm check
      ANCHORPATH_LLM_BASE_URL=http://127.0.0.1:8080/v1 anchorpath llm check
    """


@llm_group.command("check")
@config_option
def check_cmd(config_file: Path | None) -> None:
    """Ask the configured endpoint one tiny question and say what authoring will meet.

    Prints the endpoint, whether it answered, the model that answered, whether it takes
    structured outputs (response_format json_schema) or only json_object, how long the answer
    took, and where the API key came from (never the key). No cache, no retries, no ledger.
    Exit 0 when the endpoint is usable, 1 otherwise (the reason on one line).

    The endpoint is [llm] base_url (default http://127.0.0.1:8000/v1), or
    ANCHORPATH_LLM_BASE_URL; the model [llm] model, or ANCHORPATH_LLM_MODEL.

    \b
    Examples:
      anchorpath llm check
      ANCHORPATH_LLM_BASE_URL=http://127.0.0.1:8080/v1 anchorpath llm check   # llama-server
      ANCHORPATH_LLM_BASE_URL=http://127.0.0.1:11434/v1 ANCHORPATH_LLM_MODEL=qwen2.5:7b \\
          anchorpath llm check                                                 # Ollama
    """
    from anchorpath.authoring.llm.check import check_endpoint

    try:
        settings = load_settings(config_file)
        found = check_endpoint(settings.llm)
    except AnchorpathError as exc:
        raise click.ClickException(terminal_safe(exc)) from exc
    click.echo(f"endpoint    {found.base_url}")
    click.echo(f"model       {found.model_asked} (asked)")
    key = found.api_key_from or "none sent (local servers need none)"
    click.echo(f"api key     {key}")
    if not found.ok:
        raise click.ClickException(f"not usable: {terminal_safe(found.problem)}")
    click.echo(f"answered    by model {terminal_safe(found.model)}")
    click.echo(f"structured  {found.structured_note}")
    took = found.seconds or 0.0
    click.echo(f"latency     {took:.2f} s ({found.requests} HTTP request(s))")
    click.echo("ok: authoring can use this endpoint")


COMMANDS = [llm_group]
