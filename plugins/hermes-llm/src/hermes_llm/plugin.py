"""The ``sampling_provider`` contribution: one backend named ``llm``."""

from __future__ import annotations

from collections.abc import Iterable

from hermes_core.plugins import hookimpl
from hermes_core.plugins.types import SamplingProvider
from hermes_llm.backend import complete, list_models


@hookimpl
def sampling_provider() -> Iterable[SamplingProvider]:
    return [
        SamplingProvider(
            name="llm",
            models=list_models,
            complete=complete,
            description="every model the llm library and its plugins reach (async API)",
        )
    ]
