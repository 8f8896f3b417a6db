"""The transports to an MCP server: stdio, Streamable HTTP and SSE, byte streams, TLS, a child's
environment.
"""
