"""Command line for real data: ``wearbench import SOURCE PATH --out COHORT``."""

from __future__ import annotations

from pathlib import Path

import click

from wearbench._catalogue import RegistryChoice


@click.command("import")
@click.argument("source", type=RegistryChoice("loader"))
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Cohort folder to write.")
def import_cmd(source: str, path: Path, out: Path) -> None:
    """Import PATH with the loader SOURCE into a canonical cohort with OUT/import_report.json.

    SOURCE is a registered loader (`wearbench list loader`).
    """
    from wearbench.sources import REPORT_NAME, import_source

    _, report = import_source(source, path, out)
    for line in report.lines():
        click.echo(line)
    click.echo(f"wrote {out} and {out / REPORT_NAME}")
