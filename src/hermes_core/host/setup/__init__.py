"""Building a host: ``config.yaml`` read into servers, plugins' transports and auth providers,
sampling and telemetry settings.
"""
