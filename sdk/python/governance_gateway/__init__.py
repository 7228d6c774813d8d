"""Python SDK of the Governance Gateway (sync and async clients)."""
from .client import (
    ALLOW, BLOCK, REGENERATE, REWRITE,
    AsyncClient, Client, Exporter, GatewayError, StreamEvent, proxy_settings,
)

__all__ = ["ALLOW", "BLOCK", "REGENERATE", "REWRITE", "AsyncClient", "Client", "Exporter", "GatewayError",
           "StreamEvent", "proxy_settings"]
