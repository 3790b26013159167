"""The thin click CLI over the library. Command docstrings are the ``--help`` text.

Each command group lives in its own module here and is registered below; library code never
imports this package.
"""

from __future__ import annotations

import click

from anchorpath._version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="anchorpath")
def main() -> None:
    """anchorpath: describe a website's records once, collect them every day.

    \b
    Examples:
      anchorpath demo                         # serve the bundled demo site and collect it
      anchorpath validate selectors/*.json
      anchorpath extract -s selectors/mfds-dmf.json page.html
      anchorpath run mfds-dmf
    """


def _register() -> None:
    # One module per command group; a module that does not exist yet is simply skipped
    # while the tree is being built up.
    import importlib

    for name in ("selectors", "robots", "demo", "run", "author", "diff"):
        try:
            module = importlib.import_module(f"anchorpath.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"anchorpath.cli.{name}":
                raise
            continue
        for command in getattr(module, "COMMANDS", ()):
            main.add_command(command)


_register()
