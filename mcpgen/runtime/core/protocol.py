"""Protocol constants shared by the client and the server: versions, method names, _meta keys."""

from __future__ import annotations

from typing import Final

# Newest first. The handshake era negotiates among these with `initialize`.
HANDSHAKE_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
# The stateless era: no handshake, version and capabilities ride on every request's _meta.
MODERN_VERSIONS: Final = ("2026-07-28",)
LATEST_MODERN: Final = MODERN_VERSIONS[0]
LATEST_HANDSHAKE: Final = HANDSHAKE_VERSIONS[0]
# The one revision that allows JSON-RPC batches.
BATCH_VERSION: Final = "2025-03-26"

META_PROTOCOL_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"

LOG_LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")

# The Tasks extension (SEP-2663): its key under capabilities.extensions, on both sides.
EXTENSION_TASKS: Final = "io.modelcontextprotocol/tasks"
# MCP Apps: its key under capabilities.extensions, and the MIME type of the ui:// pages hosts
# render (a tool's `_meta.ui.resourceUri` names one), on both sides.
EXTENSION_UI: Final = "io.modelcontextprotocol/ui"
APP_MIME_TYPE: Final = "text/html;profile=mcp-app"


def is_app_mime_type(value: object) -> bool:
    """A MIME type naming an MCP Apps page (spaces and case aside, as peers write it)."""
    return isinstance(value, str) and value.replace(" ", "").lower() == APP_MIME_TYPE


ERA_LEGACY: Final = "legacy"
ERA_MODERN: Final = "modern"

# subscriptions/listen (2026-07-28): the stream's id on each frame, its opening notification,
# and the list kinds a filter may name.
META_SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"
SUBSCRIPTION_ACKNOWLEDGED: Final = "notifications/subscriptions/acknowledged"
LIST_KINDS: Final = ("tools", "prompts", "resources")
