"""Every block of ``config.yaml`` and ``policy.yaml`` refuses an unknown key in the same words,
with the same did-you-mean (one helper, one threshold: ``hermes_core.spelling``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hermes_core.config.loader import parse_config_text
from hermes_core.config.models import ConfigError
from hermes_core.config.policy import load_policy
from hermes_core.spelling import CUTOFF, closest, unknown_name

SERVER = "mcp_servers:\n  s:\n    command: npx\n"


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (
            SERVER + "    trsut: untrusted\n",
            "4: mcp_servers.s.trsut: unknown key (did you mean 'trust'?)",
        ),
        (
            SERVER + "    circuit_breaker: {treshold: 2}\n",
            "4: mcp_servers.s.circuit_breaker.treshold: unknown key (did you mean 'threshold'?)",
        ),
        (
            SERVER + "    tools:\n      includes: [a]\n",
            "5: mcp_servers.s.tools.includes: unknown key (did you mean 'include'?)",
        ),
        (
            SERVER + "    elicitation: {enabeld: true}\n",
            "4: mcp_servers.s.elicitation.enabeld: unknown key (did you mean 'enabled'?)",
        ),
        (
            SERVER + "    roots:\n      - pth: /a\n",
            "5: mcp_servers.s.roots[0].pth: unknown key (did you mean 'path'?)",
        ),
        (
            "sampling:\n  max_rmp: 3\nmcp_servers: {}\n",
            "2: sampling.max_rmp: unknown key (did you mean 'max_rpm'?)",
        ),
        (
            "audit:\n  enabeld: false\nmcp_servers: {}\n",
            "2: audit.enabeld: unknown key (did you mean 'enabled'?)",
        ),
        (
            "sampling:\n  bogus: 1\nmcp_servers: {}\n",
            "2: sampling.bogus: unknown key; the keys here are: allowed_models, approval, backend,",
        ),
    ],
)
def test_every_config_block_words_an_unknown_key_alike(text: str, where: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config_text(text, "config.yaml")
    assert str(caught.value).startswith(f"config.yaml:{where}")


def test_the_policy_file_words_it_alike(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("deny:\n  servers:\n    - comand: sh\n")
    with pytest.raises(ConfigError) as caught:
        load_policy({"HERMES_POLICY": str(policy)})
    assert str(caught.value) == (
        f"{policy}:3: deny.servers[0].comand: unknown key (did you mean 'command'?)"
    )


def test_one_threshold_decides_every_did_you_mean() -> None:
    # 'tmeout' is 0.91 alike to 'timeout'; 'xyz' is nothing like any key.
    assert closest("tmeout", ["timeout", "url"]) == "timeout"
    assert closest("xyz", ["timeout", "url"]) is None
    assert CUTOFF == 0.6
    assert unknown_name("xyz", ["url", "command"]) == (
        "unknown key; the keys here are: command, url"
    )
    assert unknown_name("acount", ["token", "account"], noun="setting") == (
        "unknown setting (did you mean 'account'?)"
    )
    assert unknown_name("x", [], noun="setting") == "unknown setting; the settings here are: none"
