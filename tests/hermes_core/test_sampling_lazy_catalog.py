"""A host with no sampling model configured never lists the backends' models.

Listing them imports the backends' libraries (hermes-llm: ``llm`` and the provider SDKs it
loads, about half a second of CPU) before any server connects; without ``sampling.model`` or
``allowed_models`` the answer (``no model configured``) does not depend on them.  Checked on
the real CLI under ``python -X importtime`` with hermes-llm installed, against a real server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from support.imports import imported_modules, offending

pytestmark = [pytest.mark.process, pytest.mark.cli, pytest.mark.slow]

HOSTILE = Path(__file__).parents[1] / "servers" / "hostile_server.py"
BACKEND_LIBRARIES = {"llm", "openai"}


def status(tmp_path: Path, sampling: str = "") -> tuple[set[str], dict[str, object]]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"{sampling}mcp_servers:\n  s:\n    command: {sys.executable}\n"
        f"    args: [{str(HOSTILE)!r}]\n"
    )
    modules, result = imported_modules("mcp", "status", "--json", home=home)
    assert result.returncode == 0, result.stderr[-2000:]
    (row,) = json.loads(result.stdout)
    assert row["connection"] == "connected"
    return modules, row["sampling"]


def test_no_model_configured_lists_no_models(tmp_path: Path) -> None:
    modules, sampling = status(tmp_path)
    # The premise: a backend is installed (else the reason would be "no sampling backend").
    assert str(sampling["reason"]).startswith("no model configured"), sampling
    assert offending(modules, BACKEND_LIBRARIES) == []


def test_a_configured_model_is_looked_up_in_the_backends_listing(tmp_path: Path) -> None:
    modules, sampling = status(tmp_path, "sampling:\n  model: no-such-model-anywhere\n")
    assert sampling["offered"] is False
    assert str(sampling["reason"]).startswith("model 'no-such-model-anywhere' is not offered")
    assert "llm" in modules  # the listing ran: the test above can fail
