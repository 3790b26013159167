"""The thin click CLI over the library. Command docstrings are the ``--help`` text."""

from __future__ import annotations

import click

from anchorpath._version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="anchorpath")
def main() -> None:
    """anchorpath: describe a website's records once, collect them every day."""
