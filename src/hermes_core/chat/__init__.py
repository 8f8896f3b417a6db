"""``hermes chat``'s conversation: a model (through ``llm``) and the host's tools, offered in
full or behind a ``tool_search`` tool (:mod:`.offering`), run by :mod:`.session`."""
