"""The built-in call interceptors' registrations: ``audit`` (:mod:`hermes_core.host.calls.audit`)
and ``result_budget`` (:mod:`hermes_core.host.calls.result_budget`), and the opt-in
``secrets_guard`` (:mod:`hermes_core.host.calls.secrets_guard`).

Light on purpose (the standard library and the registration types): the plugin manager loads
``hermes_core.builtin.interceptors``, which returns these, on every command that loads plugins.
"""

from __future__ import annotations

from hermes_core.host.calls.audit import AuditInterceptor
from hermes_core.host.calls.result_budget import ResultBudget
from hermes_core.host.calls.secrets_guard import SECRETS_GUARD, SecretsGuard
from hermes_core.plugins.interceptors import CallInterceptor

__all__ = ["BUILTIN_INTERCEPTORS"]

BUILTIN_INTERCEPTORS: tuple[CallInterceptor, ...] = (
    CallInterceptor(
        name="audit",
        create=AuditInterceptor.create,
        description="one JSON line per tool call in $HERMES_HOME/logs/audit.jsonl",
    ),
    CallInterceptor(
        name="result_budget",
        create=ResultBudget.create,
        description="cuts results over max_result_tokens to a preview; saves them whole",
    ),
    CallInterceptor(
        name=SECRETS_GUARD,
        create=SecretsGuard.create,
        description="refuses arguments carrying another configured server's credential",
    ),
)
