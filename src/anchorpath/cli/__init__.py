"""The thin click CLI over the library. Command docstrings are the ``--help`` text.

Each command group lives in its own module here and is registered below; library code never
imports this package.
"""

from __future__ import annotations

from typing import Any

import click

from anchorpath._version import __version__
from anchorpath.cli.options import interrupted


class _Main(click.Group):
    """The command group; Ctrl-C in any command is a one-line message and exit 130, never a
    traceback (commands with work to resume say how, see ``options.interrupted``)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise interrupted("stopped before it finished") from None


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="anchorpath")
def main() -> None:
    """anchorpath: describe a website's records once, collect them every day.

    \b
    Examples:
      anchorpath demo                         # serve the bundled demo site and collect it
      anchorpath validate selectors/*.json
      anchorpath extract -s selectors/mfds-dmf.json page.html
      anchorpath run mfds-dmf
      anchorpath check selectors/
      anchorpath diff --git origin/main --format md
    """


def _register() -> None:
    # Imported here, not at the top, because each module imports ``main``'s package.
    from anchorpath.cli import (
        author,
        demo,
        export,
        governance,
        llm,
        replay,
        review,
        robots,
        run,
        selectors,
    )

    modules = (selectors, robots, run, governance, replay, export, demo, author, review, llm)
    for module in modules:
        for command in module.COMMANDS:
            main.add_command(command)


_register()
