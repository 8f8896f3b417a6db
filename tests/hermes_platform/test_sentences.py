"""The user-facing sentences for each unavailable state."""

from __future__ import annotations

import pytest

from hermes_platform.declaration import parse_declaration
from hermes_platform.resolver.availability import Availability
from hermes_platform.sentences import guidance

DECL = parse_declaration(
    "vendor-app",
    raw_app={"linux": {"presence": "executable", "location": "/opt/v"}},
    raw_requires={"app": True, "gpu": "nvidia"},
    where="t",
)


@pytest.mark.parametrize(
    ("result", "state", "sentence"),
    [
        (
            Availability("missing_app"),
            "missing_app",
            "vendor-app is not installed. Install vendor-app, then try again.",
        ),
        (
            Availability("unsupported_os"),
            "missing_app",
            "vendor-app is not installed. Install vendor-app, then try again.",
        ),
        (
            Availability("unsupported_gpu"),
            "unsupported_gpu",
            "vendor-app needs an NVIDIA GPU; none was found on this machine. "
            "Use vendor-app on a machine with an NVIDIA GPU.",
        ),
        (
            Availability("version_too_old", "2.2.9", "/x", "2.3.0"),
            "version_too_old",
            "vendor-app version 2.2.9 is too old; version 2.3.0 or newer is required. "
            "Update vendor-app, then try again.",
        ),
        (
            Availability("version_too_old", None, "/x", "2.3.0"),
            "version_too_old",
            "vendor-app is too old; version 2.3.0 or newer is required. "
            "Update vendor-app, then try again.",
        ),
    ],
)
def test_sentences(result: Availability, state: str, sentence: str) -> None:
    advice = guidance(DECL, result)
    assert advice is not None
    assert (advice.state, advice.sentence) == (state, sentence)
    assert advice.sentence.count("try again") <= 1


def test_offerable_states_have_no_sentence() -> None:
    assert guidance(DECL, Availability("available")) is None
    assert guidance(DECL, Availability("no_requirements")) is None


def test_display_name_overrides_the_slug() -> None:
    advice = guidance(DECL, Availability("missing_app"), display_name="Vendor App")
    assert advice is not None and advice.sentence.startswith("Vendor App is not installed.")
    assert advice.retry == "after_user_action"
