"""Re-pinning: a mid-session `notifications/tools/list_changed` is checked like the connect.

The drift check on connect (typed.py) compares one `tools/list` with the tools the client was
generated from. A server may change a tool later and say so with the notification (a "rug
pull": same name, new meaning). `ToolPins` watches for it: on the notification it lists the
tools again and compares them with the generated ones by the same rule (drift.py,
tool_security.py), then

- drift="strict": fails closed per tool. Every call waits for the re-list to finish; a call to
  a tool that changed, was removed or changed in meaning (description, behaviour hints) raises
  ToolChangedError naming the tool and the change, and nothing is sent. The other tools stay
  callable: they are still the ones the client was generated from. If the re-list itself fails,
  every call raises until a later notification re-lists successfully. In the 2026-07-28 era the
  client opens the listen stream the notification comes on (when the server's
  `tools.listChanged` says its tools may change);
- drift="warn": issues a SchemaDriftWarning and blocks nothing.

Either way the result is the client's `tool_drift` (None while nothing changed) and goes to the
`on_drift` callback. Notifications are coalesced: one re-list at a time, one more if another
notification came meanwhile (a server that notifies in a loop costs one re-list per round trip).
"""

from __future__ import annotations

import inspect
import warnings
from typing import TYPE_CHECKING

from ..core.errors import McpError, SchemaDriftWarning, ToolChangedError
from ..core.jsonrpc import is_object
from ..core.protocol import ERA_MODERN
from .drift import Drift, compare_tools

if TYPE_CHECKING:
    import asyncio
    import logging

    from .catalog import ToolCatalog
    from .options import DriftCallback
    from .session import ClientSession
    from .subscriptions import Subscription


def _log() -> logging.Logger:
    """The client's logger, imported when first needed: importing a generated client loads no
    asyncio and no logging (tests/functional/server/test_cold_start.py); a session has both."""
    import logging

    return logging.getLogger("mcpgen.runtime.client")


class ToolPins:
    """One client's pins: the generated tools, re-checked on each tools/list_changed."""

    def __init__(
        self, catalog: ToolCatalog, session: ClientSession, mode: str, on_drift: DriftCallback | None = None
    ) -> None:
        self.catalog, self.session, self.mode, self.on_drift = catalog, session, mode, on_drift
        self.drift: Drift | None = None  # what the latest re-list found (None: nothing yet)
        self.guarding = False  # a notification came: calls go through admit()
        self._blocked: dict[str, str] = {}  # wire name -> what changed (strict only)
        self._failed: str | None = None  # why the latest re-list failed (strict: every call refused)
        self._task: asyncio.Task[None] | None = None
        self._again = False
        self._stream: Subscription | None = None  # the listen stream of listen(), kept open
        session.tool_watchers.append(self.notified)

    def notified(self) -> None:
        """The server said its tool list changed: re-list (or once more after the running one)."""
        self.guarding = True
        if self._task is not None and not self._task.done():
            self._again = True
            return
        import asyncio

        self._task = asyncio.get_running_loop().create_task(self._recheck())

    async def listen(self) -> None:
        """2026-07-28 sends tools/list_changed only on a listen stream: under strict, open one when
        the server says its tool list can change (a failure is logged; calls go on unwatched)."""
        tools = self.session.server_capabilities.get("tools")
        if self.mode != "strict" or self.session.era != ERA_MODERN or not is_object(tools):
            return
        if tools.get("listChanged") is not True:
            return
        try:
            self._stream = await self.session.watch_tools()
        except McpError as exc:
            _log().warning("could not listen for tools/list_changed: %.200s", exc)

    async def admit(self, wire: str) -> None:
        """Wait for a pending re-list; under strict, refuse a call to a tool that changed."""
        import asyncio

        while self._task is not None and not self._task.done():
            await asyncio.shield(self._task)
        if self._failed is not None:
            raise ToolChangedError(wire, self._failed, Drift())
        change = self._blocked.get(wire)
        if change is not None:
            raise ToolChangedError(wire, change, self.drift or Drift())

    async def _recheck(self) -> None:
        while True:
            self._again = False
            try:
                drift = compare_tools(
                    self.catalog.schema_hashes, await self.session.list_tools(), self.catalog.shared_tools()
                )
            except McpError as exc:
                self._failed = (
                    f"the tool list could not be re-checked: {str(exc)[:200]}" if self.mode == "strict" else None
                )
                _log().warning("tools/list after tools/list_changed failed: %.200s", exc)
            else:
                self._failed = None
                await self._found(drift)
            if not self._again:
                return

    async def _found(self, drift: Drift) -> None:
        self.drift = drift if drift else None
        self._blocked = blocked_tools(drift) if self.mode == "strict" else {}
        if not drift:
            return
        if self.mode == "warn":
            warnings.warn(SchemaDriftWarning("mid-session: " + drift.describe()), stacklevel=2)
        if self.on_drift is not None:
            try:
                outcome = self.on_drift(drift)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:  # a caller's callback never breaks the pins
                _log().exception("on_drift callback failed")


def blocked_tools(drift: Drift) -> dict[str, str]:
    """Wire name -> what changed, for every generated tool a strict client stops calling."""
    out: dict[str, str] = {}
    for name in drift.removed:
        out[name] = "removed by the server"
    for name in drift.changed:
        where = drift.changed_at.get(name)
        out[name] = f"its schemas changed at {where}" if where else "its schemas changed"
    for change in drift.security:
        out.setdefault(change.tool, change.detail[:300])
    return out
