"""A tool call's path through the host: :mod:`.pipeline` (the sequence), :mod:`.steps` (each
step), :mod:`.call` (the call as the steps see it), :mod:`.intercept` (the plugins' call
interceptors, run by the ``intercept`` step), :mod:`.refusals` (the call states and the one
record every refusal is built from), :mod:`.approval`, :mod:`.failures` and :mod:`.render`
(what the steps use)."""
