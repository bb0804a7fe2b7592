"""The one step of a login that needs the user: opening the authorization URL and getting back the
redirect that carries the code.

An `Authorizer` first says which redirect URI it will receive on (registration and the
authorization request name it), then turns an authorization URL into the URL the browser was
redirected to. Three come with the runtime: `LoopbackBrowser` (the system browser and a
one-shot HTTP listener on 127.0.0.1, RFC 8252 §7.3), `PasteBack` (headless: print the URL, read
the redirect URL pasted back), and any object with the same two methods (tests, GUIs).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
import webbrowser
from collections.abc import Callable
from typing import Protocol, TextIO
from urllib.parse import parse_qs, urlsplit

from ...core.errors import AuthError

_CALLBACK_PATH = "/callback"
_MAX_REQUEST = 16 * 1024
_PAGE = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\nconnection: close\r\n\r\n"
    b"<!doctype html><title>mcpgen</title><p>Login finished: you can close this tab.</p>"
)


class Authorizer(Protocol):
    async def redirect_uri(self) -> str:
        """Where the authorization server sends the browser back to (registered with the client)."""
        ...

    async def authorize(self, authorization_url: str) -> str:
        """Have the user visit authorization_url; return the full URL it redirected to."""
        ...


class LoopbackBrowser:
    """Opens the system browser and waits for the redirect on http://127.0.0.1:<port>/callback."""

    def __init__(self, port: int = 0, timeout: float = 300.0, open_url: Callable[[str], object] | None = None) -> None:
        self._port = port
        self._timeout = timeout
        self._open = open_url or webbrowser.open
        self._server: asyncio.Server | None = None
        self._arrived: asyncio.Future[str] | None = None
        self._state: str | None = None  # the login's state: a redirect without it is not this login's

    async def redirect_uri(self) -> str:
        if self._server is None:
            self._arrived = asyncio.get_running_loop().create_future()
            self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)
            self._port = self._server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{self._port}{_CALLBACK_PATH}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            line = await asyncio.wait_for(reader.readline(), 10.0)
            parts = line[:_MAX_REQUEST].decode("latin-1").split()
            if len(parts) >= 2 and parts[0] == "GET" and parts[1].split("?")[0] == _CALLBACK_PATH:
                if not self._ours(parts[1]):
                    # Anything on this machine can reach the port: a forged redirect is turned
                    # away and the login keeps waiting for the real one.
                    writer.write(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    await writer.drain()
                    return
                writer.write(_PAGE)
                if self._arrived is not None and not self._arrived.done():
                    self._arrived.set_result(f"http://127.0.0.1:{self._port}{parts[1]}")
            else:
                writer.write(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
            await writer.drain()
        except (OSError, asyncio.TimeoutError):
            pass
        finally:
            writer.close()

    def _ours(self, target: str) -> bool:
        """The redirect carries the state of the authorization URL this listener was given."""
        states = parse_qs(urlsplit(target).query).get("state", [])
        return self._state is not None and states == [self._state]

    async def authorize(self, authorization_url: str) -> str:
        await self.redirect_uri()
        assert self._arrived is not None
        states = parse_qs(urlsplit(authorization_url).query).get("state", [])
        self._state = states[0] if len(states) == 1 else None
        print(f"Opening the browser to log in; if it does not open, visit:\n  {authorization_url}", file=sys.stderr)
        with contextlib.suppress(Exception):
            self._open(authorization_url)
        try:
            return await asyncio.wait_for(asyncio.shield(self._arrived), self._timeout)
        except asyncio.TimeoutError:
            raise AuthError(f"no login arrived within {self._timeout:.0f} seconds") from None
        finally:
            await self.close()

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None


class PasteBack:
    """Headless: print the authorization URL, read back the URL the browser ended on (its page
    may fail to load on a machine without the listener: the address bar still holds the code)."""

    def __init__(
        self,
        redirect: str = "http://127.0.0.1:8976/callback",
        *,
        read: Callable[[], str] | None = None,
        out: TextIO | None = None,
    ) -> None:
        self._redirect = redirect
        self._read = read or sys.stdin.readline
        self._out = out

    async def redirect_uri(self) -> str:
        return self._redirect

    async def authorize(self, authorization_url: str) -> str:
        out = self._out or sys.stderr
        print(f"Open this URL in a browser and log in:\n  {authorization_url}", file=out)
        print("Then paste the full URL the browser was sent to:", file=out, flush=True)
        pasted = str(await _read_in_daemon(self._read)).strip()
        if not pasted:
            raise AuthError("no redirect URL was pasted")
        return pasted


async def _read_in_daemon(read: Callable[[], str]) -> str:
    """read() in a daemon thread: a login given up on (its deadline passed) must not keep the
    process waiting for a line nobody will type, as a thread of asyncio's executor would."""
    loop = asyncio.get_running_loop()
    arrived: asyncio.Future[str] = loop.create_future()

    def settle(line: str | None, error: BaseException | None) -> None:
        if arrived.done():
            return
        if error is not None:
            arrived.set_exception(error)
        else:
            arrived.set_result(line or "")

    def run() -> None:
        try:
            line, error = read(), None
        except Exception as exc:  # handed to the waiting login
            line, error = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
            loop.call_soon_threadsafe(settle, line, error)

    threading.Thread(target=run, name="mcpgen-paste-back", daemon=True).start()
    return await arrived
