"""Exec wrappers the policy looks through, by the name of the program that runs: ``env`` (its
options and ``NAME=value`` words), the shells (:mod:`hermes_core.config.policy_shell`),
``nohup``, ``nice``, ``timeout`` …, and the package runners ``npx`` and ``uvx``, whose target is
the package they fetch (and, for a bridge such as ``mcp-remote``, the URL it connects to).
Programs known to run other commands in ways not followed here (``sudo``, ``xargs`` …) cannot
be told; neither can an option not known here."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hermes_core.config.policy_shell import SHELLS, shell_step, simple_words
from hermes_core.config.policy_step import Package, Step, unjudged

__all__ = ["WRAPPERS", "Wrapper", "loader_hazard"]

Wrapper = Callable[[str, tuple[str, ...], Mapping[str, str], str | None], Step]


@dataclass(frozen=True)
class _Options:
    """A wrapper's options: flags, options taking a value, and operands before the command."""

    flags: frozenset[str] = frozenset()
    values: frozenset[str] = frozenset()
    operands: int = 0


def _opts(flags: str = "", values: str = "", operands: int = 0) -> _Options:
    return _Options(frozenset(flags.split()), frozenset(values.split()), operands)


_SIMPLE = {
    "nohup": _opts(),
    "nice": _opts(values="-n --adjustment"),
    "timeout": _opts(
        "--preserve-status --foreground -v --verbose", "-s --signal -k --kill-after", 1
    ),
    "setsid": _opts("-c --ctty -f --fork -w --wait"),
    "stdbuf": _opts(values="-i -o -e --input --output --error"),
    "time": _opts(
        "-p --portability -v --verbose -q --quiet -a --append", "-o --output -f --format"
    ),
    "ionice": _opts("-t --ignore", "-c --class -n --classdata"),
    "taskset": _opts("-a --all-tasks -c --cpu-list", operands=1),
}
_NOT_FOLLOWED = frozenset(
    {
        "sudo", "doas", "su", "runuser", "xargs", "chroot", "flock", "watch", "script",
        "strace", "ltrace", "unshare", "nsenter", "systemd-run", "setpriv", "chrt", "firejail",
        "bwrap", "bunx", "pipx", "pnpm", "yarn", "bun",
    }
)  # fmt: skip
# The environment a loader or a runner reads more code from.
_LOADER_ENV = ("LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES")
_NPX_ENV = (
    "NODE_OPTIONS",
    "NPM_CONFIG_REGISTRY",
    "NPM_CONFIG_USERCONFIG",
    "NPM_CONFIG_GLOBALCONFIG",
)
_UVX_ENV = (
    "UV_INDEX", "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "UV_FIND_LINKS",
    "UV_CONFIG_FILE", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PYTHONPATH", "PYTHONHOME",
)  # fmt: skip
_NPX = _opts(
    "-y --yes --no -q --quiet --silent --prefer-offline --prefer-online --offline "
    "--ignore-existing --no-install",
    "-p --package --cache --loglevel",
)
_UVX = _opts(
    "-q --quiet -v --verbose --offline --no-cache -n --isolated --refresh --native-tls "
    "--no-progress --no-python-downloads --managed-python --no-managed-python --preview "
    "--no-preview --compile-bytecode",
    "--from --with -p --python --cache-dir --directory --project --color --refresh-package "
    "--upgrade-package --reinstall-package --exclude-newer --python-preference --resolution "
    "--prerelease --link-mode",
)
# Packages that connect to a remote MCP server for the host: their URL is judged as an HTTP
# entry's is (`npx -y mcp-remote https://…`, `uvx mcp-proxy https://…`).
_BRIDGES = frozenset({"mcp-remote", "mcp-proxy"})
_PY_NAME = re.compile(r"^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)(?=$|[\[=<>!~@;\s])")


def loader_hazard(env: Mapping[str, str]) -> str | None:
    """Why *env* makes any program load code that is not its own, or ``None``."""
    for key in _LOADER_ENV:
        if key in env:
            return f"{key} in its environment loads code into it"
    return None


def _parse(
    name: str, options: _Options, words: list[str]
) -> tuple[list[tuple[str, str]], list[str]] | str:
    """(option, value) pairs and what follows them; a string: why they cannot be told."""
    found: list[tuple[str, str]] = []
    while words:
        word = words[0]
        if word == "--":
            words.pop(0)
            break
        if not word.startswith("-") or word == "-":
            break
        words.pop(0)
        if word.startswith("--"):
            key, eq, value = word.partition("=")
            if key in options.values and not eq:
                if not words:
                    return f"{name} {key} lacks its value"
                value = words.pop(0)
            elif key not in options.values and (key not in options.flags or eq):
                return f"the {name} option {key} is not one Hermes follows"
            found.append((key, value))
            continue
        if name == "nice" and word[1:].isdigit():
            continue
        for at, letter in enumerate(word[1:], start=1):
            key = f"-{letter}"
            if key in options.values:
                value = word[at + 1 :] or (words.pop(0) if words else "")
                if not value:
                    return f"{name} {key} lacks its value"
                found.append((key, value))
                break
            if key not in options.flags:
                return f"the {name} option {key} is not one Hermes follows"
            found.append((key, ""))
    if len(words) < options.operands:
        return f"{name} is given no command"
    return found, words[options.operands :]


def _simple(name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None) -> Step:
    parsed = _parse(name, _SIMPLE[name], list(argv[1:]))
    if isinstance(parsed, str):
        return unjudged(parsed)
    return Step(argv=tuple(parsed[1]), env=env, cwd=cwd)


_ENV_LONG = {"--unset": "u", "--chdir": "C", "--split-string": "S", "--argv0": "a"}
# Options of env that change nothing about what it runs.
_ENV_QUIET = frozenset(
    {"--null", "--debug", "--block-signal", "--default-signal", "--ignore-signal"}
)


def _env(name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None) -> Step:
    """GNU ``env``: ``-i``/``-``, ``-u NAME``, ``-C DIR``, ``-S TEXT``, ``-0``, ``-v``, signal
    options, then ``NAME=value`` words, then the command (searched on the new ``PATH``)."""
    new, words = dict(env), list(argv[1:])
    while words and words[0].startswith("-"):
        word = words.pop(0)
        if word == "--":
            break
        if word in ("-", "-i", "--ignore-environment"):
            new.clear()
            continue
        key, eq, value = word.partition("=")
        if key.startswith("--"):
            if key in _ENV_QUIET:
                continue
            letter = _ENV_LONG.get(key)
            if letter is None:
                return unjudged(f"the env option {key} is not one Hermes follows")
            if not eq:
                if not words:
                    return unjudged(f"env {key} lacks its value")
                value = words.pop(0)
            cluster = [(letter, value)]
        else:
            cluster = []
            for at, letter in enumerate(word[1:], start=1):
                if letter in "uCSa":
                    value = word[at + 1 :] or (words.pop(0) if words else "")
                    if not value:
                        return unjudged(f"env -{letter} lacks its value")
                    cluster.append((letter, value))
                    break
                if letter not in "i0v":
                    return unjudged(f"the env option -{letter} is not one Hermes follows")
                cluster.append((letter, ""))
        for letter, value in cluster:
            if letter == "i":
                new.clear()
            elif letter == "u":
                new.pop(value, None)
            elif letter == "C":
                cwd = value if value.startswith("/") else f"{cwd or '.'}/{value}"
            elif letter == "S":
                try:
                    split = simple_words(value)
                except ValueError as exc:
                    return unjudged(f"the text given to env -S is not plain words ({exc})")
                words[:0] = [text for text, _quote in split]
    while words and "=" in words[0][1:]:
        key, _, value = words.pop(0).partition("=")
        new[key] = value
    return Step(argv=tuple(words), env=new, cwd=cwd)


def _shell(name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None) -> Step:
    return shell_step(name, argv, env, cwd)


def _busybox(name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None) -> Step:
    return Step(argv=argv[1:], env=env, cwd=cwd)


def _not_followed(
    name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None
) -> Step:
    return unjudged(f"{name} runs what Hermes does not follow")


def _hazard(env: Mapping[str, str], names: tuple[str, ...], runner: str) -> str | None:
    for key in env:
        if key.upper() in names:
            return f"{key} in its environment changes what {runner} runs"
    return None


def _npx(name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None) -> Step:
    """``npx [options] <package>[@version] …`` or ``npx -p <package>… <command> …``."""
    hazard = _hazard(env, _NPX_ENV, "npx")
    words = list(argv[1:])
    if name == "npm":
        if not words or words[0] not in ("exec", "x"):
            return unjudged("npm runs what Hermes does not follow (only `npm exec`)")
        words.pop(0)
    parsed = _parse("npx", _NPX, words)
    if hazard is not None or isinstance(parsed, str):
        return unjudged(hazard or str(parsed))
    options, rest = parsed
    named = [v for k, v in options if k in ("-p", "--package")]
    if not rest and not named:
        return Step()
    if named:
        packages = tuple(Package(_npm_name(spec), spec, "npx") for spec in named)
        urls = _bridged([*(p.name for p in packages), *rest[:1]], rest[1:])
        return Step(packages=packages, programs=tuple(rest[:1]), urls=urls, env=env, cwd=cwd)
    package = Package(_npm_name(rest[0]), rest[0], "npx")
    return Step(packages=(package,), urls=_bridged([package.name], rest[1:]), env=env, cwd=cwd)


def _uvx(name: str, argv: tuple[str, ...], env: Mapping[str, str], cwd: str | None) -> Step:
    """``uvx [options] <package>[==version] …`` (also ``uv tool run``), ``--from``, ``--with``."""
    hazard = _hazard(env, _UVX_ENV, "uvx")
    words = list(argv[1:])
    if name == "uv":
        if words[:2] != ["tool", "run"]:
            return unjudged("uv runs what Hermes does not follow (only `uv tool run`)")
        del words[:2]
    parsed = _parse("uvx", _UVX, words)
    if hazard is not None or isinstance(parsed, str):
        return unjudged(hazard or str(parsed))
    options, rest = parsed
    specs = [v for k, v in options if k == "--from"]
    specs += [s for k, v in options if k == "--with" for s in v.split(",") if s.strip()]
    pythons = tuple(v for k, v in options if k in ("-p", "--python") and "/" in v)
    if not rest:
        return Step(programs=pythons)
    if not any(k == "--from" for k, _ in options):
        specs.insert(0, rest[0])
    packages = tuple(Package(_python_name(spec), spec, "uvx") for spec in specs)
    urls = _bridged([*(p.name for p in packages), rest[0]], rest[1:])
    return Step(packages=packages, programs=pythons, urls=urls, env=env, cwd=cwd)


def _bridged(names: list[str], args: list[str]) -> tuple[str, ...]:
    """The URLs among *args* when one of *names* is a stdio-to-HTTP bridge."""
    if not any(name.lower() in _BRIDGES for name in names):
        return ()
    return tuple(a for a in args if a.lower().startswith(("http://", "https://")))


def _npm_name(spec: str) -> str:
    """``@scope/name@1.2`` → ``@scope/name``; a URL, path or git spec stays whole."""
    body = spec[1:] if spec.startswith("@") else spec
    name = spec[: len(spec) - len(body)] + body.split("@", 1)[0]
    if (
        ":" in name
        or name.startswith((".", "/", "~"))
        or ("/" in name and not name.startswith("@"))
    ):
        return spec.lower()
    return name.lower()


def _python_name(spec: str) -> str:
    """``Mcp_Server.Time==1.0`` → ``mcp-server-time`` (PEP 503); a URL or path stays whole."""
    found = _PY_NAME.match(spec.strip())
    if found is None:
        return spec.strip().lower()
    return re.sub(r"[-_.]+", "-", found.group(1)).lower()


WRAPPERS: dict[str, Wrapper] = {
    "env": _env,
    **dict.fromkeys(SHELLS, _shell),
    **dict.fromkeys(_SIMPLE, _simple),
    **dict.fromkeys(_NOT_FOLLOWED, _not_followed),
    "busybox": _busybox,
    "npx": _npx,
    "npm": _npx,
    "uvx": _uvx,
    "uv": _uvx,
}
"""Program name → what it runs (``Step``)."""
