"""`mcpgen login URL`, `mcpgen logout URL`, `mcpgen auth status`: the logins that `client --url`,
`inspect --url`, `snapshot` and [tool.mcpgen] targets use (mcpgen.runtime.client.auth)."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from ..console import echo

EXIT_FAILED = 2


def _fail(message: str) -> None:
    echo(f"mcpgen: error: {message}", err=True)
    sys.exit(EXIT_FAILED)


def _need_extra() -> None:
    import importlib.util

    if any(importlib.util.find_spec(name) is None for name in ("authlib", "filelock", "joserfc")):
        _fail("logging in needs the oauth extra: pip install 'mcpgen[oauth]'")


@click.command("login")
@click.argument("url")
@click.option("--client-id", help="A client registered with the authorization server (default: register one).")
@click.option("--client-secret", envvar="MCPGEN_OAUTH_CLIENT_SECRET", help="Its secret ($MCPGEN_OAUTH_CLIENT_SECRET).")
@click.option("--scope", "scopes", multiple=True, help="A scope to ask for (repeatable; default: the server's).")
@click.option("--headless", is_flag=True, help="Print the login URL and read the redirect URL back from stdin.")
@click.option("--device", is_flag=True, help="Use the device flow (where the server offers it).")
@click.option("--port", type=int, default=0, help="The loopback port for the browser's redirect (default: any).")
@click.option("--redirect-uri", default="http://127.0.0.1:8976/callback", help="--headless: the redirect URI.")
@click.option(
    "--issuer",
    envvar="MCPGEN_OAUTH_ISSUER",
    help="The authorization server to log in with ($MCPGEN_OAUTH_ISSUER): a server naming another is refused.",
)
@click.option(
    "--login-timeout",
    type=click.FloatRange(min=1),
    default=600.0,
    show_default=True,
    help="Seconds the user has to finish logging in (browser, MFA, SSO).",
)
@click.option(
    "--connect-timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Seconds for the connection to the MCP server (the network only: the login has its own).",
)
def login_cmd(
    url: str,
    client_id: str | None,
    client_secret: str | None,
    scopes: tuple[str, ...],
    headless: bool,
    device: bool,
    port: int,
    redirect_uri: str,
    issuer: str | None,
    login_timeout: float,
    connect_timeout: float,
) -> None:
    """Log in to the MCP server at URL and keep the login (OS keyring, else a 0600 file).

    \b
    Examples:
      mcpgen login https://mcp.example.com/mcp
      mcpgen login https://mcp.example.com/mcp --headless
      mcpgen login https://mcp.example.com/mcp --client-id my-app --scope files:read
    """
    _need_extra()
    import asyncio  # (here: a command that generates from files never loads it)

    from ..runtime import connect_http
    from ..runtime.client.auth import LoopbackBrowser, OAuth, PasteBack
    from ..runtime.core.errors import McpError
    from ..sources.secrets import public_url, scrub, url_secrets

    oauth = OAuth(
        grant="device_code" if device else "authorization_code",
        client_id=client_id,
        client_secret=client_secret,
        scopes=list(scopes) or None,
        authorizer=PasteBack(redirect_uri) if headless else LoopbackBrowser(port, timeout=login_timeout),
        issuer=issuer,
    )
    shown = public_url(url)  # never a URL's userinfo or token parameter on screen

    async def run() -> Any:
        # The login runs first, on its own deadline: a user in the browser (MFA, SSO) may take
        # minutes, which the connection's timeout (the network only) must not cut short.
        challenge = await _challenge_of(url, connect_timeout)
        if challenge is not None:
            try:
                await asyncio.wait_for(oauth.login(url, challenge), login_timeout)
            except asyncio.TimeoutError:
                _fail(f"login to {shown} failed: not finished within {login_timeout:g} seconds (--login-timeout)")
        async with connect_http(url, auth=oauth, connect_timeout=connect_timeout) as session:
            return await session.list_tools()

    try:
        oauth.forget(url)  # a login starts afresh: a stale token would only be refused
        tools = asyncio.run(run())
    except (McpError, OSError) as exc:
        _fail(f"login to {shown} failed: {scrub(str(exc), [*url_secrets(url), client_secret or ''])}")
    login = oauth.store.load(_resource(url))
    if login is None:
        echo(f"{shown} did not ask for a login ({len(tools)} tools listed); nothing stored")
        return
    echo(f"logged in to {shown} (authorization server {login.issuer}; scope: {login.scope or '(default)'})")


@click.command("logout")
@click.argument("url")
def logout_cmd(url: str) -> None:
    """Revoke the tokens kept for URL (where the authorization server offers revocation, RFC 7009)
    and forget the login (tokens and client registration).

    \b
    Examples:
      mcpgen logout https://mcp.example.com/mcp
    """
    import asyncio

    from ..runtime.client.auth import OAuth
    from ..runtime.core.errors import McpError
    from ..sources.secrets import public_url

    try:
        outcome = asyncio.run(OAuth().logout(url))
    except McpError as exc:  # a token store nobody else may write to, or none
        _fail(str(exc))
    url = public_url(url)  # shown from here on: never its userinfo or token parameter
    if outcome.problem is not None:
        # Forgotten here all the same: a login nobody can revoke must not stay usable from this machine.
        echo(f"mcpgen: warning: could not revoke the tokens ({outcome.problem}); forgot them here", err=True)
    if not outcome.forgotten:
        echo(f"no login kept for {url}")
    elif outcome.revoked:
        echo(f"logged out of {url} (tokens revoked)")
    else:
        echo(f"logged out of {url}")


@click.group("auth")
def auth_group() -> None:
    """Kept logins.

    \b
    Examples:
      mcpgen auth status
    """


@auth_group.command("status")
def status_cmd() -> None:
    """List the servers logged in to: authorization server, scope, token expiry (never a token)."""
    from ..runtime.client.auth import default_store
    from ..runtime.core.errors import McpError

    store = default_store()
    try:
        resources = store.resources()
    except McpError as exc:  # a token store others can write to is refused, not listed
        _fail(str(exc))
    if not resources:
        echo("no logins kept")
        return
    for resource in resources:
        login = store.load(resource)
        if login is None:
            continue
        tokens = login.tokens
        if tokens is None:
            state = "no token (log in again)"
        elif tokens.expires_at is None:
            state = "token without expiry"
        elif tokens.expires_at > time.time():
            state = f"token valid for {int(tokens.expires_at - time.time())}s"
        else:
            state = "token expired" + (", refreshable" if tokens.refresh_token else " (log in again)")
        client = login.client.client_id if login.client else "-"
        echo(f"{resource}\n  issuer: {login.issuer}\n  client: {client}\n  scope: {login.scope or '-'}\n  {state}")


async def _challenge_of(url: str, timeout: float) -> Any:
    """The server's Bearer challenge to a request without a token (a JSON-RPC ping, which no
    server acts on), or None when it asks for none."""
    import httpx

    from ..runtime.client.auth import parse_challenge

    ping = {"jsonrpc": "2.0", "id": 0, "method": "ping"}
    headers = {"accept": "application/json, text/event-stream"}
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as http:
            reply = await http.post(url, json=ping, headers=headers)
    except httpx.HTTPError:
        return None  # the connection below says what is wrong, the way every command does
    if reply.status_code != 401:
        return None
    return parse_challenge(401, reply.headers.get("www-authenticate", ""))


def _resource(url: str) -> str:
    from ..runtime.client.auth import canonical_resource

    return canonical_resource(url)


COMMANDS = (login_cmd, logout_cmd, auth_group)
