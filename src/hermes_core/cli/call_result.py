"""A tool's result for a terminal (``hermes mcp call``, cold or on the warm host): the text of
:mod:`hermes_core.host.calls.result_text` on stdout, the host's failure or refusal as its
``error:`` line on stderr, or the raw result as JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping

from hermes_core.cli.common import EXIT_FAILED, EXIT_OK
from hermes_core.host.calls.result_text import render_text

__all__ = ["exit_code", "show_result"]


def show_result(result: Mapping[str, object], *, as_json: bool) -> None:
    """A call's result on stdout (the raw JSON with *as_json*, else its text); the host's
    error or refusal, in text, on stderr."""
    if as_json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return
    shown = render_text(result)
    if shown.host_error:
        print(shown.text, file=sys.stderr)
        return
    if shown.text:
        print(shown.text)
    if shown.failed:
        print("error: the tool reported an error (above)", file=sys.stderr)


def exit_code(result: Mapping[str, object]) -> int:
    """0 for a result, 1 for a failure or a refusal (every kind, at every door)."""
    shown = render_text(result)
    if shown.refusal is not None:
        return shown.refusal.exit_code
    return EXIT_FAILED if shown.failed else EXIT_OK
