"""Docs as tests: the README stays in sync with the schema and with .ci/run."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from anchorpath.cli import main
from anchorpath.selectors.load import load_schema

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")


def _properties(node: dict) -> set[str]:  # type: ignore[type-arg]
    names: set[str] = set()
    for name, sub in node.get("properties", {}).items():
        names.add(name)
        if isinstance(sub, dict):
            names |= _properties(sub)
            if isinstance(sub.get("items"), dict):
                names |= _properties(sub["items"])
    return names


def test_reference_mentions_every_schema_property() -> None:
    schema = load_schema()
    names = _properties(schema)
    for sub in schema["$defs"].values():
        names |= _properties(sub)
    reference = README.split("## Selector file reference", 1)[1]
    missing = sorted(n for n in names if f"`{n}`" not in reference)
    assert not missing, f"README reference lacks: {missing}"


def test_field_types_are_documented() -> None:
    types = load_schema()["$defs"]["field"]["properties"]["type"]["enum"]
    for t in types:
        assert f"`{t}`" in README


def test_ci_runs_the_first_two_readme_commands() -> None:
    block = re.search(r"## Quick start.*?```sh\n(.*?)```", README, re.S)
    assert block
    commands = [c for c in block.group(1).splitlines() if c.strip()]
    assert len(commands) == 2
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    for command in commands:
        assert command in ci


def test_every_command_has_help_with_examples() -> None:
    runner = CliRunner()
    for name, command in main.commands.items():
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, name
        assert command.help, name
        if not getattr(command, "commands", None):
            assert "Examples:" in result.output, f"{name} --help has no examples"


def test_readme_layout_names_every_package_and_every_runner_module() -> None:
    """The Layout section names every package of src/anchorpath (and of the runner) and every
    module of the package root and of the runner, by its name."""
    block = README.split("## Layout", 1)[1].split("```", 2)[1]
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", block))
    src = REPO / "src" / "anchorpath"
    missing = []
    for root in (src, src / "runner"):
        for child in sorted(root.iterdir()):
            name = child.stem
            if name.startswith("__") or child.suffix not in ("", ".py"):
                continue
            if child.is_dir() and not (child / "__init__.py").is_file():
                continue
            if (f"{name}/" if child.is_dir() else name) not in (block if child.is_dir() else words):
                missing.append(str(child.relative_to(src)))
    assert missing == []


def test_readme_names_the_quick_test_lane() -> None:
    assert 'pytest -m "not slow"' in README
