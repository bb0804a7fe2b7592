"""`mcpgen login URL`, `mcpgen logout URL`, `mcpgen auth status`: the logins that `client --url`,
`inspect --url`, `snapshot` and [tool.mcpgen] targets use (mcpgen.runtime.client.auth)."""

from __future__ import annotations

import asyncio
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
def login_cmd(
    url: str,
    client_id: str | None,
    client_secret: str | None,
    scopes: tuple[str, ...],
    headless: bool,
    device: bool,
    port: int,
    redirect_uri: str,
) -> None:
    """Log in to the MCP server at URL and keep the login (OS keyring, else a 0600 file).

    \b
    Examples:
      mcpgen login https://mcp.example.com/mcp
      mcpgen login https://mcp.example.com/mcp --headless
      mcpgen login https://mcp.example.com/mcp --client-id my-app --scope files:read
    """
    _need_extra()
    from ..runtime import connect_http
    from ..runtime.client.auth import LoopbackBrowser, OAuth, PasteBack
    from ..runtime.core.errors import McpError
    from ..sources.secrets import public_url, scrub, url_secrets

    oauth = OAuth(
        grant="device_code" if device else "authorization_code",
        client_id=client_id,
        client_secret=client_secret,
        scopes=list(scopes) or None,
        authorizer=PasteBack(redirect_uri) if headless else LoopbackBrowser(port),
    )
    oauth.forget(url)  # a login starts afresh: a stale token would only be refused

    async def run() -> Any:
        async with connect_http(url, auth=oauth) as session:
            return await session.list_tools()

    shown = public_url(url)  # never a URL's userinfo or token parameter on screen
    try:
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
    from ..runtime.client.auth import OAuth
    from ..sources.secrets import public_url

    outcome = asyncio.run(OAuth().logout(url))
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

    store = default_store()
    resources = store.resources()
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


def _resource(url: str) -> str:
    from ..runtime.client.auth import canonical_resource

    return canonical_resource(url)


COMMANDS = (login_cmd, logout_cmd, auth_group)
