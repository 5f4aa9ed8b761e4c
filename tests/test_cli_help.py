"""Every command and every option of the CLI carries help text."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from wearbench.cli import cli


def _commands(cmd: click.Command, path: str) -> list[tuple[str, click.Command]]:
    found = [(path, cmd)]
    if isinstance(cmd, click.Group):
        for name in sorted(cmd.commands):
            found += _commands(cmd.commands[name], f"{path} {name}")
    return found


COMMANDS = _commands(cli, "wearbench")


def test_walk_reaches_nested_commands() -> None:
    paths = {p for p, _ in COMMANDS}
    assert {"wearbench build", "wearbench eval", "wearbench cgm metrics", "wearbench cgm simulate"} <= paths


@pytest.mark.parametrize(("path", "cmd"), COMMANDS, ids=[p for p, _ in COMMANDS])
def test_every_command_and_option_has_help(path: str, cmd: click.Command) -> None:
    assert (cmd.help or "").strip(), f"{path}: no help"
    missing = [o.opts[0] for o in cmd.params if isinstance(o, click.Option) and not (o.help or "").strip()]
    assert missing == [], f"{path}: options without help: {missing}"


def test_help_page_shows_an_option_help() -> None:
    out = CliRunner().invoke(cli, ["cgm", "simulate", "--help"]).output
    assert "Insulin controller" in out
    assert "[basal-bolus|hcl-mpc|mdi|openaps|pid|sap]" in out  # choices read from the registry


def test_unknown_controller_is_a_usage_error() -> None:
    result = CliRunner().invoke(cli, ["cgm", "simulate", "--controller", "pdi", "--out", "x"])
    assert result.exit_code == 2
    assert "pid" in result.output
