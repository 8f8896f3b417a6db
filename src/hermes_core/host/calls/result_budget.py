"""The result budget: a tool result over ``max_result_tokens`` is cut to a preview.

Tokens are estimated as a quarter of the characters (text as it is, anything else as JSON),
the rule of thumb Claude Code's ``MAX_MCP_OUTPUT_TOKENS`` works with.  A result over its
budget is saved whole in ``$HERMES_HOME/results/<server>/`` (mode 0600, removed after
``results.max_age_days``) and the agent gets the beginning of its text with a note saying how
much was left out and where the whole of it is.  ``structuredContent`` is kept whole when it
fits the budget alone; otherwise it is left out too (the note says so).  A tool's
``_meta["anthropic/maxResultSizeChars"]`` lowers its budget.

A server cannot fill the disk through these files: one file holds at most
``results.max_file_bytes`` (a bigger result: the beginning of its JSON, in a ``.txt`` file,
and the note says so), and before a file is written the oldest saved results (by modification
time, every server's) are removed until the folder and the new file fit
``results.max_folder_bytes``.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
import time
from collections.abc import Mapping
from pathlib import Path

from hermes_core.plugins.interceptors import InterceptedCall, InterceptorSetup

__all__ = [
    "CHARS_PER_TOKEN",
    "MAX_FILE_BYTES",
    "MAX_FOLDER_BYTES",
    "RESULTS_DIR",
    "ResultBudget",
    "clean_results",
    "make_room",
    "result_chars",
]

CHARS_PER_TOKEN = 4
RESULTS_DIR = "results"
#: ``results.max_file_bytes`` and ``results.max_folder_bytes`` when unset.
MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_FOLDER_BYTES = 500 * 1024 * 1024
#: Files looked at when old results are cleaned (a bound on the walk).
MAX_CLEANED = 10_000
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _dumped_len(value: object) -> int:
    return len(json.dumps(value, ensure_ascii=False, default=str))


def result_chars(result: Mapping[str, object]) -> int:
    """The size of *result* in characters: text content as it is, the rest as JSON."""
    total = 0
    content = result.get("content")
    if isinstance(content, list):
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                text = item.get("text")
                total += len(text) if isinstance(text, str) else 0
            else:
                total += _dumped_len(item)
    if "structuredContent" in result:
        total += _dumped_len(result["structuredContent"])
    return total


def _safe(name: str) -> str:
    return _UNSAFE.sub("_", name)[:80] or "_"


class ResultBudget:
    """The built-in ``result_budget`` interceptor (its ``after`` cuts big results)."""

    before = None

    def __init__(
        self,
        home: Path,
        max_age_days: float = 7.0,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_folder_bytes: int = MAX_FOLDER_BYTES,
    ) -> None:
        self.folder = home / RESULTS_DIR
        self.max_age_days = max_age_days
        self.max_folder_bytes = max_folder_bytes
        self.max_file_bytes = min(max_file_bytes, max_folder_bytes)

    @classmethod
    def create(cls, setup: InterceptorSetup) -> ResultBudget:
        settings = setup.settings
        age = settings.get("max_age_days", 7.0)
        valid = isinstance(age, int | float) and not isinstance(age, bool) and age > 0
        budget = cls(
            setup.home,
            float(age) if valid else 7.0,
            _size(settings.get("max_file_bytes"), MAX_FILE_BYTES),
            _size(settings.get("max_folder_bytes"), MAX_FOLDER_BYTES),
        )
        clean_results(budget.folder, budget.max_age_days)  # once per host
        return budget

    def after(self, call: InterceptedCall, result: dict[str, object]) -> dict[str, object] | None:
        budget = call.max_result_tokens
        if budget <= 0 or "error" in result:
            return None
        limit = budget * CHARS_PER_TOKEN
        content = result.get("content")
        if not isinstance(content, list) and "structuredContent" not in result:
            # not a tool result: a resource read, a prompt, a listing (the utility tools)
            dumped = json.dumps(result, ensure_ascii=False, default=str)
            if len(dumped) <= limit:
                return None
            return _dump_preview(dumped, budget, self._save(call, result))
        # The usual small result: one short look at its text.
        if isinstance(content, list) and "structuredContent" not in result:
            quick = 0
            for item in content:
                text = item.get("text") if isinstance(item, dict) else None
                quick += len(text) if isinstance(text, str) else limit + 1
            if quick <= limit:
                return None
        total = result_chars(result)
        if total <= limit:
            return None
        saved = self._save(call, result)
        return _preview(result, budget, total, saved)

    def _save(self, call: InterceptedCall, result: Mapping[str, object]) -> str:
        """Save *result* (at most ``max_file_bytes`` of it, after making room in the folder);
        the note's sentence saying where it is."""
        data = json.dumps(result, ensure_ascii=False, default=str).encode("utf-8")
        whole = len(data)
        cut = whole > self.max_file_bytes
        if cut:
            data = data[: self.max_file_bytes]
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        folder = self.folder / _safe(call.server)
        folder.mkdir(mode=0o700, exist_ok=True)
        make_room(self.folder, len(data), self.max_folder_bytes)
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        suffix = "txt" if cut else "json"
        path = folder / f"{stamp}-{_safe(call.tool)}-{secrets.token_hex(4)}.{suffix}"
        temporary = path.with_name(path.name + ".part")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(temporary, flags, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
        if cut:
            return (
                f"Only the first {len(data):,} bytes of its JSON (of {whole:,}; "
                f"results.max_file_bytes) are saved in {path}."
            )
        return f"The whole result is saved in {path} (read it from there if the rest is needed)."


def _size(value: object, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 4096:
        return value
    return default


def make_room(folder: Path, needed: int, cap: int) -> int:
    """Remove the oldest saved results (regular files, by modification time, every server's)
    until those left and *needed* more bytes fit *cap*; how many were removed."""
    files: list[tuple[float, int, Path]] = []
    looked = 0
    for server in folder.iterdir() if folder.is_dir() else ():
        if not server.is_dir() or server.is_symlink():
            continue
        for path in server.iterdir():
            looked += 1
            if looked > MAX_CLEANED:
                break
            try:
                info = path.lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                files.append((info.st_mtime, info.st_size, path))
    total = sum(size for _, size, _ in files) + needed
    removed = 0
    for _, size, path in sorted(files, key=lambda f: f[0]):
        if total <= cap:
            break
        try:
            path.unlink()
        except OSError:
            continue
        total -= size
        removed += 1
    return removed


def _preview(
    result: Mapping[str, object], budget: int, total: int, saved: str
) -> dict[str, object]:
    limit = budget * CHARS_PER_TOKEN
    kept: dict[str, object] = {}
    structured = result.get("structuredContent")
    structured_note = ""
    if "structuredContent" in result:
        size = _dumped_len(structured)
        if size <= limit:
            kept["structuredContent"] = structured
            limit -= size
        else:
            structured_note = " Its structured content did not fit and is in the file only."
    room = max(limit - 600, 0)  # the note's own room
    shown: list[object] = []
    dropped = 0
    content = result.get("content")
    for item in content if isinstance(content, list) else ():
        text = item.get("text") if isinstance(item, dict) and item.get("type") == "text" else None
        if not isinstance(text, str):
            size = _dumped_len(item)
            if size <= room:
                shown.append(item)
                room -= size
            else:
                dropped += 1
            continue
        if room <= 0:
            dropped += 1
            continue
        part = text[:room]
        shown.append({"type": "text", "text": part})
        room -= len(part)
    shown_tokens = max(0, (result_chars({"content": shown, **kept})) // CHARS_PER_TOKEN)
    total_tokens = (total + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
    left = f" ({dropped} content item{'s' if dropped != 1 else ''} left out)" if dropped else ""
    note = (
        f"[Hermes cut this result: it was about {total_tokens:,} tokens, over the budget of "
        f"{budget:,} (max_result_tokens); about {shown_tokens:,} are shown above{left}. "
        f"{saved}{structured_note}]"
    )
    shown.append({"type": "text", "text": note})
    preview: dict[str, object] = {"content": shown, **kept}
    preview["isError"] = result.get("isError", False)
    if "resultType" in result:
        preview["resultType"] = result["resultType"]
    return preview


def _note(total: int, budget: int, shown: int, saved: str, extra: str = "") -> str:
    total_tokens = (total + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
    return (
        f"[Hermes cut this result: it was about {total_tokens:,} tokens, over the budget of "
        f"{budget:,} (max_result_tokens); about {shown // CHARS_PER_TOKEN:,} are shown above"
        f"{extra}. {saved}]"
    )


def _dump_preview(dumped: str, budget: int, saved: str) -> dict[str, object]:
    """A result that is not a tool's (a resource, a prompt) cut: the start of its JSON."""
    part = dumped[: max(budget * CHARS_PER_TOKEN - 600, 0)]
    note = _note(len(dumped), budget, len(part), saved, " (the start of its JSON)")
    return {
        "content": [{"type": "text", "text": part}, {"type": "text", "text": note}],
        "isError": False,
    }


def clean_results(folder: Path, max_age_days: float) -> int:
    """Remove saved results older than *max_age_days* (regular files only); how many."""
    if not folder.is_dir():
        return 0
    cutoff = time.time() - max_age_days * 86400
    removed = looked = 0
    for server in folder.iterdir():
        if not server.is_dir() or server.is_symlink():
            continue
        for path in server.iterdir():
            looked += 1
            if looked > MAX_CLEANED:
                return removed
            try:
                info = path.lstat()
                if stat.S_ISREG(info.st_mode) and info.st_mtime < cutoff:
                    path.unlink()
                    removed += 1
            except OSError:
                continue
    return removed
