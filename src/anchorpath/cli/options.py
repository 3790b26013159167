"""Option decorators shared by several commands, so each flag reads the same everywhere."""

from __future__ import annotations

from pathlib import Path

import click

selectors_option = click.option(
    "--selectors",
    "selectors_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory of selector files (default: paths.selectors_dir, 'selectors').",
)
state_option = click.option(
    "--state",
    "state_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="State directory: database, WARCs, reports (default: paths.state_dir).",
)
config_option = click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Config file (TOML); default ANCHORPATH_CONFIG or ./anchorpath.toml.",
)
executor_option = click.option(
    "--executor",
    "executor",
    default="local",
    show_default=True,
    help="Where the work runs: 'local' (threads of this process) or 'dask://HOST:PORT' "
    "(a Dask scheduler; workers need the package and the state directory on a shared "
    "filesystem).",
)
