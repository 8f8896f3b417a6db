"""plugin.yaml fails closed: unknown keys anywhere are errors through `hermes apps check`.

Before issue 9, ``require:`` (for ``requires:``) was ignored, so the server had
no requirements and was offered everywhere (``no_requirements``, exit 0), and
``flie:`` inside a location mapping was ignored too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.cli import run_hermes

pytestmark = [pytest.mark.process, pytest.mark.cli]

VALID_TOP = "(valid keys: ['app', 'display_name', 'name', 'requires'])"


def check(tmp_path: Path, text: str) -> tuple[int, str, str]:
    plugin = tmp_path / "plugin.yaml"
    plugin.write_text(text)
    result = run_hermes(
        "apps", "check", str(plugin), env={"PATH": "", "HOME": str(tmp_path)}, minimal=True
    )
    return result.returncode, result.stdout, result.stderr


def test_require_for_requires_is_an_error_not_no_requirements(tmp_path: Path) -> None:
    code, out, err = check(
        tmp_path,
        "name: vendor\n"
        "app:\n"
        "  linux: {presence: executable, location: /opt/vendor/bin/vendor}\n"
        "require:\n"
        "  app: true\n",
    )
    assert "no_requirements" not in out
    assert code == 2
    assert err.strip() == (
        f"error: {tmp_path / 'plugin.yaml'}:4: the file has unknown keys ['require']; "
        f"did you mean 'requires'? {VALID_TOP}"
    )


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        (
            "name: vendor\n"
            "app:\n"
            "  win32:\n"
            "    presence: executable\n"
            "    location:\n"
            "      - kind: uninstall_registry\n"
            "        display_name_prefix: Vendor\n"
            "        flie: vendor.exe\n"
            "requires: {app: true}\n",
            8,
            "app.win32.location[0] has unknown keys ['flie']; did you mean 'file'? "
            "(valid keys: ['display_name_prefix', 'file', 'kind'])",
        ),
        (
            "name: vendor\n"
            "app:\n"
            "  darwin:\n"
            "    presence: bundle\n"
            "    location: /Applications/Vendor.app\n"
            "    version: {kind: plist, verison: 2}\n"
            "requires: {app: true}\n",
            6,
            "app.darwin.version has unknown keys ['verison'] "
            "(valid keys: ['display_name_prefix', 'kind'])",
        ),
        (
            "name: vendor\n"
            "app:\n"
            "  linux:\n"
            "    presence: executable\n"
            "    location: /opt/vendor/bin/vendor\n"
            "    min_version: '2.0'\n",
            6,
            "app.linux has unknown keys ['min_version']; 'min_version' belongs under requires "
            "(valid keys: ['liveness', 'location', 'presence', 'version'])",
        ),
        (
            "name: vendor\ndisplayname: Vendor\n",
            2,
            f"the file has unknown keys ['displayname']; did you mean 'display_name'? {VALID_TOP}",
        ),
        (
            "name: vendor\napp:\n  linux:\n    location: /opt/vendor/bin/vendor\n",
            3,
            "app.linux.presence must be one of ('executable', 'bundle') (missing)",
        ),
        (
            "name: vendor\n"
            "app:\n"
            "  linux: {presence: executable, location: /opt/vendor/bin/vendor}\n"
            "requires:\n"
            "  app: true\n"
            "  min_verison: '2.0'\n",
            6,
            "requires has unknown keys ['min_verison']; did you mean 'min_version'?",
        ),
    ],
)
def test_unknown_and_missing_keys_name_file_line_and_key(
    tmp_path: Path, text: str, line: int, reason: str
) -> None:
    code, out, err = check(tmp_path, text)
    assert (code, out) == (2, "")
    assert err.strip() == f"error: {tmp_path / 'plugin.yaml'}:{line}: {reason}"
