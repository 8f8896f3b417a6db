"""hermes-llm: the ``llm`` library as Hermes' sampling backend (see ``hermes_llm.plugin``)."""

from hermes_llm.backend import complete, list_models

__all__ = ["complete", "list_models"]
