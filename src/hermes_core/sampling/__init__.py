"""Sampling: an MCP server asks the host's LLM to write something for it.

The LLM comes from a plugin (the ``sampling_provider`` hook, see
:mod:`hermes_core.sampling.backend`); the host converts the server's
``sampling/createMessage`` request into a backend-neutral
:class:`~hermes_core.sampling.backend.CompletionRequest`, applies the limits the
user set (:mod:`hermes_core.sampling.settings`) and answers the server.  Nothing
here imports an LLM library.
"""
