"""The MCP host: connect servers, register their tools, filter and sanitise what they send."""
