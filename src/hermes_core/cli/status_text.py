"""The status lines of ``hermes mcp status`` (and ``mcp call``'s sampling line): what is not in
its everyday state, the roots, the sampling counters."""

from __future__ import annotations

from typing import Any

from hermes_core.sampling.settings import NO_MODEL
from hermes_core.sanitize import clean_line

__all__ = ["lifecycle_lines", "roots_line", "sampling_line", "sampling_matters"]


def lifecycle_lines(row: dict[str, Any]) -> list[str]:
    """Status lines for what is not in its everyday state (breaker, keepalive, trust, lazy)."""
    lines = []
    breaker = row.get("breaker") or {}
    if breaker.get("state", "closed") != "closed":
        lines.append(
            f"breaker: {breaker['state']} after {breaker['strikes']} failures "
            f"(calls resume in {breaker['retry_in']:g} s)"
        )
    keepalive = row.get("keepalive") or {}
    if keepalive.get("failures"):
        lines.append(
            f"keepalive: {keepalive['failures']} failed probe(s), last: {keepalive['last_failure']}"
        )
    if row.get("trust") == "untrusted":
        approvals = row.get("approvals") or {}
        lines.append(
            "trust: untrusted (write-capable calls need approval; "
            f"approved {approvals.get('approved', 0)}, refused {approvals.get('refused', 0)})"
        )
    for problem in row.get("override_problems") or ():
        lines.append(f"tool override not applied: {clean_line(problem)}")
    if row.get("filtered_out"):
        lines.append(f"filtered out: {row['filtered_out']} tool(s) by tools: include/exclude")
    counters = row.get("elicitation") or {}
    if counters.get("requests"):
        lines.append(
            f"elicitation: {counters['requests']} question(s): "
            + ", ".join(
                f"{counters.get(key, 0)} {key}"
                for key in ("accepted", "declined", "cancelled", "errors")
            )
        )
    lazy = row.get("lazy")
    if lazy is not None and not lazy.get("started"):
        cached = lazy.get("cached_tools")
        lines.append(
            f"lazy: {cached} tools from the cache; starts on first call"
            if lazy.get("cache") == "hit"
            else "lazy: no usable cache, started now"
        )
    return lines


def roots_line(roots: list[dict[str, Any]]) -> str:
    """The configured roots on one line: ``/a/b (label), /c``."""
    return ", ".join(
        clean_line(root["path"]) + (f" ({clean_line(root['name'])})" if root.get("name") else "")
        for root in roots
    )


def sampling_matters(info: dict[str, Any] | None) -> bool:
    """Whether a server's sampling is worth a status line: it is offered, the server asked, or
    it was set up and does not work; not when no model is configured (nothing asked for it)."""
    if not info:
        return False
    if info["offered"] or info.get("requests"):
        return True
    return info.get("reason") != NO_MODEL


def sampling_line(info: dict[str, Any]) -> str:
    """One server's sampling: not offered and why, or the model and the counters."""
    if not info["offered"]:
        return f"not offered: {info['reason']}"
    model = info["model"] or "hint among " + ", ".join(info["allowed_models"])
    refused = sum(info["refused"].values())
    reasons = ", ".join(f"{k} {v}" for k, v in sorted(info["refused"].items()))
    return (
        f"model {model} · {info['requests']} requests, {info['completed']} completed, "
        f"{refused} refused{f' ({reasons})' if reasons else ''}, {info['errors']} errors, "
        f"{info['timeouts']} timeouts · tokens {info['tokens_in']} in / {info['tokens_out']} out"
        f" · last model {info['last_model'] or '-'}"
    )
