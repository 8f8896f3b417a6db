"""A host that stays up: keepalive, the circuit breaker, trust tiers and lazy servers.

Against our own SDK server (tests/servers/lifecycle_server.py), which logs every event that
reaches it, and server-everything as a lazy server through the CLI.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hermes_core.config.loader import load_config
from hermes_core.host.calls.breaker import CircuitBreaker
from hermes_core.host.host import HostServer, MCPHost
from hermes_core.host.setup.from_config import config_fingerprint
from hermes_core.offers.elicitation import (
    ElicitationSettings,
)
from servers.reference import EVERYTHING, node
from support.approvers import Approver
from support.cli import run_hermes
from support.home import clean_env

LIFECYCLE = str(Path(__file__).parents[1] / "servers" / "lifecycle_server.py")


def lifecycle(
    log: Path, name: str = "life", env: dict[str, str] | None = None, **kw: Any
) -> HostServer:
    return HostServer(
        name,
        command=sys.executable,
        args=[LIFECYCLE],
        env={"EVENT_LOG": str(log), **(env or {})},
        **kw,
    )


def events(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


async def until(condition: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Wait for *condition* (checked on every loop turn) within a generous bound."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"timed out waiting for: {what}")
        await asyncio.sleep(0.02)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


# -- circuit breaker: the state machine ------------------------------------------------------


class BreakerModel:
    """The reference: strikes in a row open it; after the cooldown one probe is let through."""

    def __init__(self, threshold: int, cooldown: float) -> None:
        self.threshold, self.cooldown = threshold, cooldown
        self.strikes, self.opened_at, self.probing = 0, None, False

    def state(self, now: float) -> str:
        if self.opened_at is None:
            return "closed"
        return "half_open" if now - self.opened_at >= self.cooldown else "open"

    def admit(self, now: float) -> bool:
        state = self.state(now)
        if state == "closed":
            return True
        if state == "half_open" and not self.probing:
            self.probing = True
            return True
        return False

    def record(self, ok: bool, now: float) -> None:
        self.probing = False
        if ok:
            self.strikes, self.opened_at = 0, None
            return
        self.strikes += 1
        if self.opened_at is not None or self.strikes >= self.threshold:
            self.opened_at = now


steps = st.lists(
    st.one_of(
        st.tuples(st.just("call"), st.sampled_from(["ok", "transport", "application"])),
        st.tuples(st.just("tick"), st.floats(min_value=0, max_value=30)),
        st.tuples(st.just("admit_only"), st.just("")),
    ),
    max_size=60,
)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=5), st.floats(min_value=0.5, max_value=20), steps)
def test_breaker_follows_its_reference_model(
    threshold: int, cooldown: float, script: list[tuple[str, Any]]
) -> None:
    clock = Clock()
    breaker = CircuitBreaker("s", threshold=threshold, cooldown=cooldown, clock=clock)
    model = BreakerModel(threshold, cooldown)
    pending = False  # an admitted call without an outcome yet
    for kind, value in script:
        if kind == "tick":
            clock.now += value
        elif kind == "admit_only" and not pending:
            refused = breaker.admit()
            assert (refused is None) == model.admit(clock.now)
            pending = refused is None
        elif kind == "call":
            if not pending:
                refused = breaker.admit()
                assert (refused is None) == model.admit(clock.now)
                if refused is not None:
                    assert refused["state"] == "circuit_open" and refused["retryable"] is False
                    continue
            breaker.record(value)
            model.record(value == "ok", clock.now)
            pending = False
        assert breaker.state == model.state(clock.now)
        assert breaker.strikes == model.strikes


def test_breaker_says_whether_the_server_is_unreachable_or_rejecting() -> None:
    clock = Clock()
    breaker = CircuitBreaker("s", threshold=2, cooldown=10, clock=clock)
    for _ in range(2):
        assert breaker.admit() is None
        breaker.record("application")
    refused = breaker.admit()
    assert refused is not None and refused["reason"] == "rejecting"
    assert "rejected the last 2 calls" in refused["error"] and "Do NOT repeat" in refused["error"]
    clock.now += 10
    assert breaker.admit() is None  # the probe
    assert breaker.admit() is not None  # others wait while it runs
    breaker.record("transport")  # the probe failed: open again, for a whole cooldown
    refused = breaker.admit()
    assert refused is not None and refused["reason"] == "unreachable"
    assert breaker.snapshot()["state"] == "open" and breaker.snapshot()["opened"] == 1


# -- circuit breaker through the host ------------------------------------------------------


@pytest.mark.process
@pytest.mark.slow
def test_failing_calls_open_the_breaker_and_a_probe_closes_it(tmp_path: Path) -> None:
    log = tmp_path / "events"
    clock = Clock()

    async def scenario() -> None:
        server = lifecycle(log, env={"FAIL_TIMES": "3"}, breaker_threshold=3, breaker_cooldown=60)
        async with MCPHost([server], clock=clock) as host:
            for _ in range(3):
                result = await host.call_tool("mcp_life_flaky")
                assert result["isError"] is True
            refused = await host.call_tool("mcp_life_flaky")
            assert refused["state"] == "circuit_open" and refused["reason"] == "rejecting"
            assert events(log).count("call flaky") == 3  # the refused call never reached it
            # Utility-free server: a read-only tool of the same server is refused too …
            assert (await host.call_tool("mcp_life_look"))["state"] == "circuit_open"
            (row,) = host.status()
            assert row.breaker is not None and row.breaker["state"] == "open"
            assert row.breaker["refused"] == 2
            clock.now += 60  # … until the cooldown is over: one call goes through as a probe
            result = await host.call_tool("mcp_life_flaky")
            assert result["content"][0]["text"] == "flaky: ok"
            (row,) = host.status()
            assert row.breaker is not None and row.breaker["state"] == "closed"
            assert row.breaker["strikes"] == 0

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.slow
def test_timeouts_count_as_transport_failures(tmp_path: Path) -> None:
    log = tmp_path / "events"

    async def scenario() -> None:
        server = lifecycle(log, timeout=0.5, breaker_threshold=2, breaker_cooldown=300)
        async with MCPHost([server]) as host:
            for _ in range(2):
                assert "error" in await host.call_tool("mcp_life_stall")
            refused = await host.call_tool("mcp_life_look")
            assert refused["reason"] == "unreachable"
            assert "is unreachable after 2 consecutive failures" in refused["error"]
            assert "call look" not in events(log)

    asyncio.run(scenario())


# -- trust tiers -----------------------------------------------------------------------------


@pytest.mark.process
@pytest.mark.slow
@pytest.mark.parametrize(
    ("approver", "why"),
    [
        (Approver("decline"), "the user declined"),
        (Approver("cancel"), "the user cancelled"),
        (Approver(None), "no answer within 0.3 s"),
        (Approver("accept", fail=True), "the approval failed (RuntimeError)"),
        (None, "no approval channel"),
    ],
)
def test_untrusted_write_tools_run_only_when_approved(
    tmp_path: Path, approver: Approver | None, why: str
) -> None:
    log = tmp_path / "events"

    async def scenario() -> None:
        server = lifecycle(
            log, trust="untrusted", elicitation=ElicitationSettings(enabled=True, timeout=0.3)
        )
        async with MCPHost([server], elicitor=approver) as host:
            looked = await host.call_tool("mcp_life_look")  # read-only: no question
            assert looked["content"][0]["text"] == "look: ok"
            refused = await host.call_tool("mcp_life_write", {"path": "/etc/x"})
            assert refused["state"] == "not_approved" and refused["retryable"] is False
            assert why in refused["error"] and "was NOT run" in refused["error"]
            (row,) = host.status()
            assert row.trust == "untrusted" and row.approvals == {"approved": 0, "refused": 1}
            # A refusal is not the server's fault: the breaker did not count it.
            assert row.breaker is not None and row.breaker["strikes"] == 0
        assert "call write" not in events(log) and "call look" in events(log)
        if approver is not None:
            (asked,) = approver.seen
            assert asked.kind == "approval" and '"/etc/x"' in asked.message

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.slow
def test_untrusted_write_tool_runs_once_approved_and_trusted_servers_never_ask(
    tmp_path: Path,
) -> None:
    log = tmp_path / "events"

    async def scenario() -> None:
        approver = Approver("accept")
        servers = [lifecycle(log, trust="untrusted"), lifecycle(log, "full")]
        async with MCPHost(servers, elicitor=approver) as host:
            assert (await host.call_tool("mcp_life_write"))["content"][0]["text"] == "write: ok"
            assert (await host.call_tool("mcp_full_write"))["content"][0]["text"] == "write: ok"
        assert len(approver.seen) == 1 and approver.seen[0].server == "life"

    asyncio.run(scenario())


def _home(tmp_path: Path, entry: str) -> dict[str, str]:
    (tmp_path / "config.yaml").write_text(f"mcp_servers:\n  life:\n{entry}")
    return {"HERMES_HOME": str(tmp_path)}


def _lifecycle_entry(log: Path, extra: str = "") -> str:
    return (
        f"    command: {json.dumps(sys.executable)}\n    args: [{json.dumps(LIFECYCLE)}]\n"
        f"    env: {{EVENT_LOG: {json.dumps(str(log))}}}\n{extra}"
    )


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
@pytest.mark.parametrize(("answer", "ran"), [(b"y\n", True), (b"\n", False)])
def test_hermes_mcp_call_asks_before_an_untrusted_write(
    tmp_path: Path, answer: bytes, ran: bool
) -> None:
    import pty
    import subprocess

    log = tmp_path / "events"
    env = _home(tmp_path, _lifecycle_entry(log, "    trust: untrusted\n"))
    master, slave = pty.openpty()
    try:
        base = clean_env(os.environ)
        child = subprocess.Popen(
            [sys.executable, "-m", "hermes_core", "mcp", "call", "--json", "mcp_life_write"],
            stdin=slave,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**base, **env},
        )
        os.write(master, answer)
        out, err = child.communicate(timeout=60)
    finally:
        os.close(master)
        os.close(slave)
    assert "is untrusted and wants to run 'write'" in err
    assert "Run it? [y]es / [N]o / [a]lways / ne[v]er" in err
    assert err.count("Run it?") == 1, err  # asked once, not "… Run it?" then "Run it? …"
    result = json.loads(out)
    if ran:
        assert child.returncode == 0 and result["content"][0]["text"] == "write: ok"
        assert "call write" in events(log)
    else:
        assert child.returncode == 1 and result["state"] == "not_approved"
        assert "call write" not in events(log)


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_without_a_terminal_an_untrusted_write_is_not_run(tmp_path: Path) -> None:
    log = tmp_path / "events"
    env = _home(tmp_path, _lifecycle_entry(log, "    trust: UNTRUSTED\n"))
    done = run_hermes("mcp", "call", "--json", "mcp_life_write", env=env)
    assert done.returncode == 1
    assert json.loads(done.stdout)["state"] == "not_approved"
    assert "not run (no terminal to ask on)" in done.stderr
    assert "call write" not in events(log)
    looked = run_hermes("mcp", "call", "--json", "mcp_life_look", env=env)
    assert looked.returncode == 0, looked.stderr


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("    trust: none\n", "trust: must be full or untrusted (got 'none')"),
        ("    trust: [full]\n", "trust: must be full or untrusted"),
        ("    lazy: maybe\n", "lazy: must be true or false"),
        ("    keepalive_interval: often\n", "keepalive_interval: must be a number of seconds"),
        ("    circuit_breaker: {treshold: 2}\n", "did you mean 'threshold'"),
        ("    circuit_breaker: {threshold: 0}\n", "threshold: must be a whole number"),
        ("    circuit_breaker: {cooldown: -1}\n", "cooldown: must be a positive number"),
    ],
)
def test_bad_lifecycle_settings_are_config_errors(tmp_path: Path, extra: str, message: str) -> None:
    env = _home(tmp_path, _lifecycle_entry(tmp_path / "events", extra))
    done = run_hermes("mcp", "list", env=env)
    assert done.returncode == 2, done.stdout
    assert "config.yaml:" in done.stderr and message in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_lifecycle_settings_show_in_status_json(tmp_path: Path) -> None:
    extra = (
        "    trust: untrusted\n    keepalive_interval: 2\n"
        "    circuit_breaker: {threshold: 5, cooldown: 30}\n"
    )
    env = _home(tmp_path, _lifecycle_entry(tmp_path / "events", extra))
    done = run_hermes("mcp", "status", "--json", env=env)
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    assert row["trust"] == "untrusted"
    assert row["approvals"] == {"approved": 0, "refused": 0}
    assert row["breaker"]["state"] == "closed"
    assert (row["breaker"]["threshold"], row["breaker"]["cooldown"]) == (5, 30)
    assert row["keepalive"]["interval"] == 5  # the floor
    assert "keepalive_interval: is below the 5 s floor" in done.stderr
    text = run_hermes("mcp", "status", env=env)
    assert "trust: untrusted (write-capable calls need approval" in text.stdout


# -- keepalive -------------------------------------------------------------------------------


@pytest.mark.process
@pytest.mark.slow
def test_keepalive_pings_a_quiet_server(tmp_path: Path) -> None:
    log = tmp_path / "events"

    async def scenario() -> None:
        async with MCPHost([lifecycle(log, keepalive_interval=0.2)]) as host:
            await until(lambda: events(log).count("ping") >= 2, "two pings")
            (row,) = host.status()
            assert row.keepalive is not None and row.keepalive["probe"] == "ping"
            assert row.keepalive["failures"] == 0 and row.connection == "connected"

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.slow
def test_a_server_without_ping_is_probed_with_a_listing(tmp_path: Path) -> None:
    log = tmp_path / "events"

    async def scenario() -> None:
        server = lifecycle(log, env={"PING_MODE": "unsupported"}, keepalive_interval=0.2)
        async with MCPHost([server]) as host:
            # (The server logs a listing when it gets it; the probe is recorded once answered.)
            await until(
                lambda: (
                    events(log).count("list") >= 3
                    and (host.status()[0].keepalive or {}).get("probe") == "tools_list"
                ),
                "probes by listing",
            )
            assert events(log).count("ping") == 1  # asked once, then remembered
            (row,) = host.status()
            assert row.keepalive is not None and row.keepalive["probe"] == "tools_list"
            assert row.keepalive["failures"] == 0

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.slow
def test_keepalive_off_sends_nothing(tmp_path: Path) -> None:
    log = tmp_path / "events"

    async def scenario() -> None:
        async with MCPHost([lifecycle(log, keepalive_interval=0)]) as host:
            # A call and its answer prove the server is up and reading; then a quiet moment.
            await host.call_tool("mcp_life_look")
            await host.call_tool("mcp_life_look")
            (row,) = host.status()
            assert row.keepalive is None
        assert "ping" not in events(log)

    asyncio.run(scenario())


@pytest.mark.process
@pytest.mark.slow
def test_a_wedged_server_is_noticed_and_restarted_before_the_next_call(tmp_path: Path) -> None:
    log = tmp_path / "events"

    def starts() -> list[int]:
        return [int(e.split()[1]) for e in events(log) if e.startswith("start ")]

    async def scenario() -> None:
        server = lifecycle(log, keepalive_interval=0.5, keepalive_timeout=1.0)
        async with MCPHost([server]) as host:
            # Quiet first: the start's late second listing answered, a probe answered.
            await until(lambda: events(log).count("list") >= 2, "the second listing")
            await until(lambda: "ping" in events(log), "a first ping")
            (first,) = starts()
            os.kill(first, signal.SIGSTOP)  # wedged: alive, but answers nothing
            try:
                await until(lambda: len(starts()) == 2, "a new server process")
                await until(lambda: host.status()[0].connection == "connected", "reconnected")
            finally:
                with_suppressed_kill(first)
            (row,) = host.status()
            assert row.keepalive is not None and row.keepalive["failures"] == 1
            assert "no answer within" in (row.keepalive["last_failure"] or "")
            assert (await host.call_tool("mcp_life_look"))["content"][0]["text"] == "look: ok"

    asyncio.run(scenario())


def with_suppressed_kill(pid: int) -> None:
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return


# -- lazy servers ----------------------------------------------------------------------------


def test_the_cache_key_leaves_credential_values_out(tmp_path: Path) -> None:
    def key(text: str) -> str:
        config = tmp_path / "config.yaml"
        config.write_text(f"mcp_servers:\n  s:\n{text}")
        return config_fingerprint(load_config(config).config.mcp_servers["s"])

    base = key("    url: https://example.test/mcp\n    headers: {Authorization: Bearer one}\n")
    rotated = key("    url: https://example.test/mcp\n    headers: {Authorization: Bearer two}\n")
    moved = key("    url: https://other.test/mcp\n    headers: {Authorization: Bearer one}\n")
    assert base == rotated != moved
    stdio = key("    command: srv\n    env: {TOKEN: a}\n")
    assert stdio == key("    command: srv\n    env: {TOKEN: b}\n")
    assert stdio != key("    command: srv\n    args: [--other]\n    env: {TOKEN: a}\n")


def _everything_home(tmp_path: Path) -> tuple[dict[str, str], Path]:
    starts = tmp_path / "starts"
    wrapper = tmp_path / "everything.sh"
    wrapper.write_text(
        f'#!/bin/sh\necho started >> "{starts}"\nexec "{node()}" "{EVERYTHING}" stdio\n'
    )
    wrapper.chmod(0o755)
    (tmp_path / "config.yaml").write_text(
        f"mcp_servers:\n  everything:\n    command: {json.dumps(str(wrapper))}\n    lazy: true\n"
    )
    return {"HERMES_HOME": str(tmp_path)}, starts


def _count(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_lazy_server_everything_answers_from_the_cache_and_starts_on_first_call(
    tmp_path: Path,
) -> None:
    env, starts = _everything_home(tmp_path)
    first = run_hermes("mcp", "tools", env=env)
    assert first.returncode == 0, first.stderr
    assert _count(starts) == 1  # no cache yet: started eagerly, the listing written through
    (cache,) = (tmp_path / "cache" / "mcp-tools").iterdir()
    assert cache.stat().st_mode & 0o777 == 0o600

    second = run_hermes("mcp", "tools", env=env)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout and "mcp_everything_echo" in second.stdout
    assert _count(starts) == 1  # answered from the cache: no process started

    status = run_hermes("mcp", "status", "--json", env=env)
    (row,) = json.loads(status.stdout)
    assert row["connection"] == "lazy" and row["offered"] is True
    assert row["lazy"]["cache"] == "hit" and row["lazy"]["started"] is False
    assert (
        "tools from the cache; starts on first call" in run_hermes("mcp", "status", env=env).stdout
    )
    assert _count(starts) == 1

    # The server renamed a tool since the cache was written: the old name is a phantom.
    data = json.loads(cache.read_text())
    data["tools"].append({**data["tools"][0], "name": "old-echo"})
    cache.write_text(json.dumps(data))
    listed = run_hermes("mcp", "tools", env=env)
    assert "mcp_everything_old_echo" in listed.stdout and _count(starts) == 1
    phantom = run_hermes(
        "mcp", "call", "--json", "mcp_everything_old_echo", "--args", "{}", env=env
    )
    assert _count(starts) == 2  # the first call started it
    assert "no longer offers the tool 'old-echo'" in json.loads(phantom.stdout)["error"]
    assert "were dropped: mcp_everything_old_echo" in phantom.stderr  # reported when dropped
    assert "Traceback" not in phantom.stderr
    echo = run_hermes(
        "mcp", "call", "--json", "mcp_everything_echo", "--args", '{"message": "hi"}', env=env
    )
    assert echo.returncode == 0, echo.stderr
    assert "hi" in json.loads(echo.stdout)["content"][0]["text"]
    # The live listing was written through: the phantom is gone from the cache.
    assert "old-echo" not in cache.read_text()


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_mcp_test_really_starts_a_lazy_server_whose_tools_are_cached(tmp_path: Path) -> None:
    env, starts = _everything_home(tmp_path)
    assert run_hermes("mcp", "tools", env=env).returncode == 0  # writes the cache
    assert _count(starts) == 1
    tested = run_hermes("mcp", "test", "everything", "--json", env=env)
    assert tested.returncode == 0, tested.stderr
    assert _count(starts) == 2  # connected for real, not answered from the cache
    assert "lazy" not in json.loads(tested.stdout)["connection"]


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_a_lazy_server_whose_cache_does_not_match_starts_eagerly(tmp_path: Path) -> None:
    env, starts = _everything_home(tmp_path)
    assert run_hermes("mcp", "tools", env=env).returncode == 0
    (cache,) = (tmp_path / "cache" / "mcp-tools").iterdir()
    data = json.loads(cache.read_text())
    data["fingerprint"] = "something else"  # the server's command or url changed
    cache.write_text(json.dumps(data))
    assert run_hermes("mcp", "tools", env=env).returncode == 0
    assert _count(starts) == 2


# -- hermes mcp call starts only the server that owns the tool --------------------------------


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_mcp_call_starts_only_the_owning_server(tmp_path: Path) -> None:
    log, hung = tmp_path / "events", tmp_path / "hung-started"
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  life:\n"
        + _lifecycle_entry(log)
        + "  hangs:\n    command: /bin/sh\n"
        + f"    args: ['-c', 'echo started > {hung}; exec sleep 600']\n"
        + "  life-extra:\n"  # its prefix mcp_life_extra_ also starts with mcp_life_
        + _lifecycle_entry(tmp_path / "extra-events")
    )
    env = {"HERMES_HOME": str(tmp_path)}
    done = run_hermes("mcp", "call", "--json", "mcp_life_look", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "look: ok"
    assert not hung.exists()  # the unrelated server was never started
    assert not (tmp_path / "extra-events").exists()  # nor the one whose prefix only overlaps

    extra = run_hermes("mcp", "call", "--json", "mcp_life_extra_look", env=env)
    assert extra.returncode == 0, extra.stderr  # both candidates start; the right one answers
    assert not hung.exists()

    typo = run_hermes("mcp", "call", "--json", "mcp_life_lok", env=env)
    assert typo.returncode == 1
    assert "did you mean mcp_life_look" in json.loads(typo.stdout)["error"]
    nobody = run_hermes("mcp", "call", "--json", "mcp_nobody_x", env=env)
    assert nobody.returncode == 1 and "no enabled server owns it" in nobody.stdout
    assert not hung.exists()


@pytest.mark.process
@pytest.mark.cli
@pytest.mark.slow
def test_mcp_call_to_a_failed_server_says_why(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "mcp_servers:\n  broken:\n    command: hermes-no-such-command-anywhere\n"
    )
    done = run_hermes(
        "mcp", "call", "--json", "mcp_broken_anything", env={"HERMES_HOME": str(tmp_path)}
    )
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error.startswith("MCP server 'broken' failed, so 'mcp_broken_anything' is not available")
    assert "unknown tool" not in error


def test_the_cache_key_follows_what_the_host_offers(tmp_path: Path) -> None:
    # server-everything lists its sampling tool only to a host that offers sampling: a cache
    # written without sampling must not serve a host that now offers it.
    def key(text: str, top: str = "") -> str:
        config = tmp_path / "config.yaml"
        config.write_text(f"{top}mcp_servers:\n  s:\n    command: srv\n{text}")
        loaded = load_config(config)
        return config_fingerprint(loaded.config.mcp_servers["s"], loaded.config.sampling)

    plain = key("")
    assert plain != key("    sampling: {enabled: false}\n")
    assert plain != key("", top="sampling: {model: echo}\n")
    assert plain != key("    elicitation: {enabled: false}\n")
