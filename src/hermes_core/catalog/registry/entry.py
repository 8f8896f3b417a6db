"""A ``server.json`` becomes an ``mcp_servers`` entry: which package (or remote) runs, what
to ask the user, and the entry written once they answered.

* ``npm``  → ``npx -y [runtimeArguments] IDENTIFIER@VERSION [packageArguments]``
* ``pypi`` → ``uvx [runtimeArguments] IDENTIFIER==VERSION [packageArguments]`` (``pipx run`` when
  only pipx is here, or the ``runtimeHint`` says so)
* ``oci``  → ``docker run --rm -i [runtimeArguments] -e NAME… IMAGE[:VERSION] [packageArguments]``
* a ``remotes`` endpoint → ``url`` (+ ``transport: sse``) and its ``headers``
* ``mcpb`` is a bundle (:mod:`.bundle`).

Every value the user gives is saved to ``$HERMES_HOME/.env`` and the entry holds ``${VAR}``, as
for the catalog's keys; fixed values are written as they are (``${`` escaped as ``$${``).  An
optional input left unanswered is left out (the flag with it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from hermes_core.catalog.registry.server_json import Input, Package, Remote, ServerJson
from hermes_platform.runners import MissingRunner, missing_runner

__all__ = [
    "KINDS",
    "Choice",
    "PlanError",
    "Question",
    "choose",
    "config_name",
    "described",
    "entry_for",
    "questions",
]

KINDS = ("npm", "pypi", "oci", "mcpb", "remote")
"""What ``--package`` may pick (``remote``: the first ``remotes`` endpoint)."""
_RUNNERS = {"npm": "npx", "pypi": "uvx", "oci": "docker"}
_VAR = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class PlanError(ValueError):
    """The ``server.json`` offers nothing this Hermes can run (the sentence says what)."""


@dataclass(frozen=True)
class Choice:
    kind: str
    package: Package | None = None
    remote: Remote | None = None

    @property
    def inputs(self) -> list[Input]:
        if self.package is not None:
            p = self.package
            return [*p.runtime_arguments, *p.package_arguments, *p.environment_variables]
        return list(self.remote.headers) if self.remote is not None else []


@dataclass(frozen=True)
class Question:
    """One value to ask, saved to ``.env`` as *variable*."""

    variable: str
    prompt: str
    secret: bool
    required: bool
    default: str | None = None
    choices: tuple[str, ...] = ()


def config_name(registry_name: str) -> str:
    """The ``mcp_servers`` key for ``io.github.acme/weather-mcp``: ``weather-mcp``."""
    tail = registry_name.rsplit("/", 1)[-1]
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", tail).strip("-._")[:64]
    return cleaned or "server"


def _runnable(package: Package) -> bool:
    return package.transport.type == "stdio" or package.registry_type == "mcpb"


def choose(server: ServerJson, wanted: str | None = None) -> Choice:
    """The way to run *server*: *wanted* (one of :data:`KINDS`), else the first package this
    Hermes supports whose runner is here, else the first remote, else the first supported
    package (its runner missing: saved disabled).  :class:`PlanError` when none is usable."""
    if wanted == "remote":
        if not server.remotes:
            raise PlanError(f"{server.name} has no remote endpoint (remotes)")
        return _remote_choice(server.remotes[0])
    supported = [p for p in server.packages if p.registry_type in KINDS]
    if wanted is not None:
        picked = [p for p in supported if p.registry_type == wanted]
        if not picked:
            offered = ", ".join(_offer(server)) or "nothing"
            raise PlanError(f"{server.name} has no {wanted} package (it offers {offered})")
        return _package_choice(picked[0])
    for package in supported:
        if _runnable(package) and missing_runner(_runner_of(package)) is None:
            return _package_choice(package)
    if server.remotes:
        return _remote_choice(server.remotes[0])
    for package in supported:
        return _package_choice(package)
    if server.packages:
        kinds = ", ".join(sorted({p.registry_type for p in server.packages}))
        raise PlanError(
            f"{server.name}: package type {kinds} is not one this Hermes installs "
            f"(it installs {', '.join(KINDS[:-1])} packages and remote endpoints)"
        )
    raise PlanError(f"{server.name} lists no packages and no remote endpoints")


def _offer(server: ServerJson) -> list[str]:
    return [p.registry_type for p in server.packages] + (["remote"] if server.remotes else [])


def _package_choice(package: Package) -> Choice:
    if not _runnable(package):
        raise PlanError(
            f"package {package.identifier} ({package.registry_type}) runs as a "
            f"{package.transport.type} server it would start itself; Hermes installs stdio "
            "packages (or use its remote endpoint: --package remote)"
        )
    return Choice(package.registry_type, package=package)


def _remote_choice(remote: Remote) -> Choice:
    if remote.type not in ("streamable-http", "sse"):
        raise PlanError(f"remote transport {remote.type!r} is not streamable-http or sse")
    if not remote.url or not remote.url.startswith(("https://", "http://")):
        raise PlanError("the remote endpoint has no http(s) url")
    return Choice("remote", remote=remote)


def _runner_of(package: Package) -> str | None:
    if package.registry_type == "pypi":
        hint = package.runtime_hint
        if hint in ("uvx", "pipx"):
            return hint
        if missing_runner("uvx") is not None and missing_runner("pipx") is None:
            return "pipx"
        return "uvx"
    return _RUNNERS.get(package.registry_type)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", text).strip("_").upper()


def _variable(item: Input, prefix: str, var: str | None = None) -> str:
    if var is None and item.kind == "env" and _ENV_NAME.fullmatch(item.name):
        return item.name
    return "_".join(part for part in (_slug(prefix), _slug(var or item.name) or "VALUE") if part)


def questions(choice: Choice, prefix: str) -> list[Question]:
    """What to ask the user, in order (each named for its ``.env`` variable)."""
    asked: list[Question] = []
    seen: set[str] = set()

    def add(item: Input, variable: str, label: str) -> None:
        if variable in seen:
            return
        seen.add(variable)
        prompt = item.description or label
        asked.append(
            Question(variable, prompt, item.secret, item.required, item.default, item.choices)
        )

    for item in choice.inputs:
        if item.value is None:
            add(item, _variable(item, prefix), item.name or "value")
            continue
        for var in _VAR.findall(item.value):
            spec = item.variables.get(var)
            if spec is not None and spec.value is None:
                add(spec, _variable(item, prefix, var), var)
    return asked


def _literal(text: str) -> str:
    return text.replace("${", "$${")


def _render(item: Input, prefix: str, answered: set[str]) -> str | None:
    """*item*'s text in the entry (``${VAR}`` for what was asked); ``None``: leave it out."""
    if item.value is None:
        variable = _variable(item, prefix)
        return "${" + variable + "}" if variable in answered else None
    out: list[str] = []
    last = 0
    for match in _VAR.finditer(item.value):
        var = match.group(1)
        spec = item.variables.get(var)
        if spec is None:
            continue  # not a variable of this input: kept as written
        out.append(_literal(item.value[last : match.start()]))
        if spec.value is not None:
            out.append(_literal(spec.value))
        else:
            variable = _variable(item, prefix, var)
            if variable not in answered:
                return None
            out.append("${" + variable + "}")
        last = match.end()
    out.append(_literal(item.value[last:]))
    return "".join(out)


def _arguments(items: Sequence[Input], prefix: str, answered: set[str]) -> list[str]:
    args: list[str] = []
    for item in items:
        text = _render(item, prefix, answered)
        if text is None:
            continue
        args.extend([item.name, text] if item.kind == "named" else [text])
    return args


def _env(items: Sequence[Input], prefix: str, answered: set[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for item in items:
        text = _render(item, prefix, answered)
        if text is not None:
            env[item.name] = text
    return env


def _image(package: Package) -> str:
    ident = package.identifier
    last = ident.rsplit("/", 1)[-1]
    if ":" in last or "@" in last or not package.version:
        return ident
    return f"{ident}:{package.version}"


def entry_for(
    choice: Choice, prefix: str, answered: set[str]
) -> tuple[dict[str, object], MissingRunner | None]:
    """The ``mcp_servers`` entry, and the runner it needs that is not here (saved disabled)."""
    if choice.remote is not None:
        remote = choice.remote
        entry: dict[str, object] = {"url": _literal(remote.url or "")}
        if remote.type == "sse":
            entry["transport"] = "sse"
        headers = _env(remote.headers, prefix, answered)
        if headers:
            entry["headers"] = headers
        return entry, None
    package = choice.package
    assert package is not None
    runtime = _arguments(package.runtime_arguments, prefix, answered)
    rest = _arguments(package.package_arguments, prefix, answered)
    env = _env(package.environment_variables, prefix, answered)
    version = package.version
    runner = _runner_of(package)
    if package.registry_type == "npm":
        spec = _literal(f"{package.identifier}@{version}" if version else package.identifier)
        command, args = "npx", ["-y", *runtime, spec, *rest]
    elif package.registry_type == "pypi":
        spec = _literal(f"{package.identifier}=={version}" if version else package.identifier)
        if runner == "pipx":
            command, args = "pipx", ["run", *runtime, spec, *rest]
        else:
            command, args = "uvx", [*runtime, spec, *rest]
    elif package.registry_type == "oci":
        passed = [part for name in env for part in ("-e", name)]
        command, args = (
            "docker",
            ["run", "--rm", "-i", *runtime, *passed, _literal(_image(package)), *rest],
        )
    else:
        raise PlanError(f"package type {package.registry_type} has no command (a bundle?)")
    entry = {"command": command, "args": args}
    if env:
        entry["env"] = env
    return entry, missing_runner(command)


def described(choice: Choice, entry: Mapping[str, object]) -> str:
    """``npx -y pkg@1.0 …`` or the URL, for the trust display."""
    if "command" in entry:
        args = entry.get("args", [])
        shown = map(str, args if isinstance(args, list | tuple) else ())
        return " ".join([str(entry["command"]), *shown])
    return str(entry.get("url", ""))
