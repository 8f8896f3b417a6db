"""The ``call_interceptor`` hook: its registration type and how the plugin manager collects it."""

from __future__ import annotations

import dataclasses
import types

import pytest

from hermes_core.plugins import hookimpl
from hermes_core.plugins.manager import HermesPluginManager
from hermes_core.plugins.types import CallInterceptor, Decision, InterceptedCall, Verdict


def inline(**hooks: object) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})  # type: ignore[arg-type]


def _deny(call: InterceptedCall) -> Decision | None:
    return Decision.refuse("no") if call.tool.startswith("delete_") else None


def test_hook_call_interceptor(hermes_pm: HermesPluginManager) -> None:
    spec = CallInterceptor(name="deny_delete", before=_deny, description="refuses delete_*")
    hermes_pm.register_plugin(inline(call_interceptor=lambda: [spec]), "deny-plugin")
    registered = hermes_pm.call_interceptors()
    # the same interceptor, told which plugin registered it (named when it fails a call)
    assert registered["deny_delete"] == dataclasses.replace(spec, provider="deny-plugin")
    assert next(r for r in hermes_pm.plugins() if r.name == "deny-plugin").contributions == {
        "call_interceptor": ["deny_delete"]
    }


def test_an_interceptor_without_a_callable_is_not_registered(
    hermes_pm: HermesPluginManager,
) -> None:
    hermes_pm.strict = False
    spec = CallInterceptor(name="empty")
    hermes_pm.register_plugin(inline(call_interceptor=lambda: [spec]), "empty-plugin")
    assert "empty" not in hermes_pm.call_interceptors()
    (record,) = [r for r in hermes_pm.plugins() if r.name == "empty-plugin"]
    assert record.status == "degraded"
    assert "no callable before, after or create" in record.reason


def test_an_interceptor_name_clash_names_both(hermes_pm: HermesPluginManager) -> None:
    first = CallInterceptor(name="dup", before=_deny)
    hermes_pm.strict = False
    second = CallInterceptor(name="dup", after=lambda call, result: None)
    hermes_pm.register_plugin(inline(call_interceptor=lambda: [first]), "one")
    hermes_pm.register_plugin(inline(call_interceptor=lambda: [second]), "two")
    assert hermes_pm.call_interceptors()["dup"] == dataclasses.replace(first, provider="one")
    (record,) = [r for r in hermes_pm.plugins() if r.name == "two"]
    assert "'dup' is already provided by one" in record.reason


@pytest.mark.parametrize("name", ["", "1st", "has space", "a.b", "x" * 65])
def test_an_interceptor_name_must_be_a_plain_word(name: str) -> None:
    with pytest.raises(ValueError, match="interceptor name"):
        CallInterceptor(name=name, before=_deny)


def test_decisions_are_checked_when_built() -> None:
    assert Decision.allow().verdict is Verdict.PASS
    rewritten = Decision.rewrite({"path": "/tmp/x"}, reason="confined")
    assert rewritten.verdict is Verdict.REWRITE and rewritten.arguments == {"path": "/tmp/x"}
    with pytest.raises(ValueError, match="reason"):
        Decision.refuse("  ")
    with pytest.raises(TypeError, match="mapping"):
        Decision.rewrite(["not", "a", "mapping"])  # type: ignore[arg-type]
