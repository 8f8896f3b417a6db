"""Moved to hermes_core.offers.elicitation; kept for importers until the redesign's last step."""

from __future__ import annotations

from hermes_core.offers.elicitation import (
    ElicitationAnswer,
    ElicitationField,
    ElicitationHandler,
    ElicitationRequest,
    ElicitationSettings,
    Elicitor,
    check_value,
    elicitation_settings,
    fill_answer,
)

__all__ = [
    "ElicitationAnswer",
    "ElicitationField",
    "ElicitationHandler",
    "ElicitationRequest",
    "ElicitationSettings",
    "Elicitor",
    "check_value",
    "elicitation_settings",
    "fill_answer",
]
