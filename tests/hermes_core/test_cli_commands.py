"""The CLI's dispatch table: every subcommand the parser knows has a handler, and every handler
named in the table exists (the modules are imported only when their subcommand runs)."""

from __future__ import annotations

import argparse
import importlib

import pytest

from hermes_core.cli.commands import HANDLERS, subcommand
from hermes_core.cli.parser import build_parser


def _leaves(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found.extend(_leaves(child, (*words, name)))
            return found
    return [words]


def test_every_subcommand_of_the_parser_has_a_handler() -> None:
    leaves = set(_leaves(build_parser()))
    assert leaves - set(HANDLERS) == set()
    # and the table names no subcommand the parser lacks (the picker is a bare `hermes mcp`)
    assert set(HANDLERS) - leaves == {("mcp", "picker")}


@pytest.mark.parametrize("target", sorted({t for ts in HANDLERS.values() for t in ts}))
def test_every_handler_in_the_table_exists(target: str) -> None:
    module, _, function = target.partition(":")
    assert callable(getattr(importlib.import_module(module), function))


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["mcp", "list"], ("mcp", "list")),
        (["mcp", "sampling", "models"], ("mcp", "sampling", "models")),
        (["mcp", "sampling"], ("mcp", "sampling")),
        (["import-agent", "claude-code"], ("import-agent",)),
        (["plugins"], ("plugins",)),
        ([], ()),
    ],
)
def test_the_words_of_a_parsed_command(argv: list[str], words: tuple[str, ...]) -> None:
    assert subcommand(build_parser().parse_args(argv)) == words


def test_a_bare_mcp_is_the_catalog_without_a_terminal() -> None:
    assert subcommand(build_parser().parse_args(["mcp"])) == ("mcp", "catalog")
