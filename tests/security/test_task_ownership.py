"""The Tasks ownership rule (runtime/server/task_owner.py) under attack: a task is reachable only
by whoever created it (the OAuth principal; else, without auth, whoever holds the id), on every
tasks method, from the worker running it and from another worker sharing its store (memory and a
real Redis). Someone else's task answers exactly as an unknown task does; a handshake-era
connection, where Tasks are not defined, reaches none, its own token's included."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from mcpgen.runtime import RpcError, Server
from mcpgen.runtime.core.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND
from mcpgen.runtime.core.protocol import EXTENSION_TASKS, META_CLIENT_CAPABILITIES, META_PROTOCOL_VERSION
from mcpgen.runtime.server.auth.info import AuthInfo, current_auth
from mcpgen.runtime.server.server import RequestContext, ServerConnection
from mcpgen.runtime.server.store import MemoryStore, Store
from mcpgen.runtime.server.tasks import TaskRecord
from mcpgen.runtime.transports.memory import MemoryTransport, memory_pair
from tests.stores import make_store, redis_url

__all__ = ["make_store", "redis_url"]  # the fixtures this module uses

TASKS_CAPS = {"extensions": {EXTENSION_TASKS: {}}}
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")


def token(subject: str | None, client_id: str | None, issuer: str = "https://as.example") -> AuthInfo:
    return AuthInfo(subject, client_id, frozenset(), issuer, ("https://rs.example",), None)


async def forever(args: dict[str, Any], ctx: RequestContext) -> dict[str, Any]:
    await asyncio.Event().wait()
    return {"content": []}


def worker() -> Server:
    server = Server("owned-tasks", "1.0")
    server.add_tool(
        {"name": "forever", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "required"}}, forever
    )
    return server


@dataclass
class Caller:
    """One client of one worker: its era and its token (None: auth off)."""

    name: str
    identity: str  # callers with the same identity are the same owner under the rule
    era: str
    auth: AuthInfo | None = None

    def on(self, server: Server) -> Connected:
        wire, end = memory_pair()
        return Connected(self, server.connection(end), wire)


@dataclass
class Connected:
    caller: Caller
    connection: ServerConnection
    wire: MemoryTransport  # the client's end: what the server sends besides answers
    initialized: bool = False

    async def agreed(self, task_ids: list[str]) -> Any:
        """What a subscriptions/listen for these tasks' status notifications is acknowledged with."""
        listen = asyncio.ensure_future(self.request("subscriptions/listen", {"notifications": {"taskIds": task_ids}}))
        try:
            ack = json.loads(await asyncio.wait_for(self.wire.receive(), 10) or b"null")
        finally:
            listen.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listen
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        return ack["params"]["notifications"]

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        if self.caller.era == "legacy" and not self.initialized:
            self.initialized = True
            hello = {"protocolVersion": "2025-11-25", "capabilities": TASKS_CAPS, "clientInfo": {"name": "c"}}
            await self.send("initialize", hello)
        if self.caller.era == "modern":
            meta = {META_PROTOCOL_VERSION: "2026-07-28", META_CLIENT_CAPABILITIES: TASKS_CAPS}
            params = {**params, "_meta": meta}
        return await self.send(method, params)

    async def send(self, method: str, params: dict[str, Any]) -> Any:
        # The resource-server middleware sets the verified token around each request.
        reset = current_auth.set(self.caller.auth)
        try:
            return await self.connection.handle_request(method, params, secrets.randbelow(10**9))
        finally:
            current_auth.reset(reset)


ALICE = token("alice", "app")
CALLERS = [
    Caller("alice's token", "alice", "modern", ALICE),
    Caller("alice's token again", "alice", "modern", ALICE),
    Caller("bob's token", "bob", "modern", token("bob", "app")),
    Caller("alice through another client", "alice@other", "modern", token("alice", "other-app")),
    Caller("alice of another issuer", "alice@elsewhere", "modern", token("alice", "app", "https://evil.example")),
    Caller("a token naming nobody", "nobody", "modern", token(None, None)),
    Caller("stateless, no auth", "anyone", "modern"),
]
CREATORS = [c for c in CALLERS if c.name in ("alice's token", "stateless, no auth")]
# Handshake-era connections declaring the extension at initialize: the task's creator's token
# or none, each reaches no task at all.
HANDSHAKE = [Caller("alice's token in a session", "alice", "legacy", ALICE), Caller("a session, no auth", "", "legacy")]


async def refused(connected: Connected, method: str, task_id: str) -> tuple[int, str, Any]:
    params: dict[str, Any] = {"taskId": task_id}
    if method == "tasks/update":
        params["inputResponses"] = {"k": {"action": "accept", "content": {}}}
    reason = "Unknown task" if connected.caller.era == "modern" else f"Method not found: {method} "
    with pytest.raises(RpcError, match=reason) as error:
        await connected.request(method, params)
    return error.value.code, error.value.message, error.value.data


@pytest.mark.parametrize("creator", CREATORS, ids=lambda c: c.name)
def test_another_callers_task_is_unknown_on_every_method_and_every_worker(
    creator: Caller, make_store: Callable[[], Store]
) -> None:
    async def main() -> None:
        store = make_store()
        await store.start(f"mcpgen:test-{secrets.token_hex(4)}:")
        running, other = worker(), worker()  # two workers sharing one store
        running.tasks.use_store(store)
        other.tasks.use_store(store)
        try:
            created = await creator.on(running).request("tools/call", {"name": "forever", "arguments": {}})
            task_id = created["taskId"]
            never = secrets.token_urlsafe(18)  # same shape, never created
            for caller in CALLERS + HANDSHAKE:
                for server in (running, other):
                    connected = caller.on(server)
                    for method in TASK_METHODS:
                        if caller.identity == creator.identity and caller.era == "modern":
                            if method == "tasks/get":
                                assert (await connected.request(method, {"taskId": task_id}))["status"] == "working"
                            continue
                        # No oracle: exactly what a task that never existed gets.
                        code, message, data = await refused(connected, method, task_id)
                        unknown = await refused(connected, method, never)
                        assert (code, message.replace(task_id, never), data) == unknown, (caller.name, method)
                        assert code == (INVALID_PARAMS if caller.era == "modern" else METHOD_NOT_FOUND)
                    if caller.era == "modern":  # subscriptions/listen is a 2026-07-28 method
                        agreed = await connected.agreed([task_id, never])
                        assert agreed == ({"taskIds": [task_id]} if caller.identity == creator.identity else {})
            # Nothing the others sent reached the task: still working, nothing in its inbox.
            owner = creator.on(other)
            assert (await owner.request("tasks/get", {"taskId": task_id}))["status"] == "working"
            assert await store.task_inbox(task_id) == []
            assert running.tasks._running[task_id].record.status == "working"
            # The owner reaches it from the other worker too.
            await owner.request("tasks/cancel", {"taskId": task_id})
            for _ in range(200):
                if (await owner.request("tasks/get", {"taskId": task_id}))["status"] == "cancelled":
                    break
                await asyncio.sleep(0.05)
            assert (await owner.request("tasks/get", {"taskId": task_id}))["status"] == "cancelled"
        finally:
            await store.close()

    asyncio.run(asyncio.wait_for(main(), 60))


def test_the_owner_is_stored_as_a_digest_and_a_garbled_owner_makes_the_record_unknown() -> None:
    async def main() -> None:
        store = MemoryStore()
        server = worker()
        server.tasks.use_store(store)
        alice = CALLERS[0].on(server)
        task_id = (await alice.request("tools/call", {"name": "forever", "arguments": {}}))["taskId"]
        raw = await store.load_task(task_id)
        assert raw is not None and b"alice" not in raw and b"as.example" not in raw
        record = TaskRecord.decode(raw)
        assert record is not None and len(record.owner) == 64
        # Rewritten by someone with the store in hand: an anonymous owner is not alice's.
        record.owner = "anonymous"
        server.tasks._running.clear()  # as another worker would read it: from the store
        await store.save_task(task_id, record.encode(), 60)
        await refused(alice, "tasks/get", task_id)
        assert (await CALLERS[-1].on(server).request("tasks/get", {"taskId": task_id}))["taskId"] == task_id

    asyncio.run(asyncio.wait_for(main(), 30))
