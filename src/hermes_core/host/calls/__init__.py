"""A tool call's path through the host: :mod:`.pipeline` (the sequence), :mod:`.steps` (each
step), :mod:`.call` (the call as the steps see it), :mod:`.approval`, :mod:`.failures` and
:mod:`.render` (what the steps use)."""
