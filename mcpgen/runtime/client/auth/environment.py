"""The credentials a non-interactive run uses for a URL: client credentials from the environment
(CI, build steps), else the login `mcpgen login URL` stored, else none (a 401 then says to log in).

    MCPGEN_OAUTH_CLIENT_ID        the pre-registered client's id (turns client credentials on)
    MCPGEN_OAUTH_CLIENT_SECRET    its secret (client_secret_basic, or _post if that is all the server takes)
    MCPGEN_OAUTH_PRIVATE_KEY_FILE or a PEM key file for private_key_jwt
    MCPGEN_OAUTH_SIGNING_ALG      the key's algorithm (RS256 by default; ES256 for an EC key)
    MCPGEN_OAUTH_SCOPES           space-separated scopes to ask for (default: what the server names)
    MCPGEN_OAUTH_ISSUER           the authorization server the credentials belong to: they go to it
                                  only, and a server that names another is refused (set it in CI)

Without MCPGEN_OAUTH_ISSUER the credentials go only to the authorization server that the MCP
server's own origin names (binding.py): a cross-origin `resource_metadata` is never followed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ...core.errors import AuthError
from .oauth import OAuth
from .store import MemoryTokenStore

ENV_CLIENT_ID = "MCPGEN_OAUTH_CLIENT_ID"
ENV_CLIENT_SECRET = "MCPGEN_OAUTH_CLIENT_SECRET"
ENV_PRIVATE_KEY_FILE = "MCPGEN_OAUTH_PRIVATE_KEY_FILE"
ENV_SIGNING_ALG = "MCPGEN_OAUTH_SIGNING_ALG"
ENV_SCOPES = "MCPGEN_OAUTH_SCOPES"
ENV_ISSUER = "MCPGEN_OAUTH_ISSUER"


def auth_for_run(environ: Mapping[str, str] | None = None) -> OAuth:
    """Client credentials when MCPGEN_OAUTH_CLIENT_ID is set; else stored logins, never a new one."""
    env = os.environ if environ is None else environ
    scopes = env.get(ENV_SCOPES, "").split() or None
    issuer = env.get(ENV_ISSUER) or None
    client_id = env.get(ENV_CLIENT_ID)
    if not client_id:
        return OAuth(interactive=False, scopes=scopes, issuer=issuer)
    key_file = env.get(ENV_PRIVATE_KEY_FILE)
    try:
        private_key = Path(key_file).read_text(encoding="utf-8") if key_file else None
    except OSError as exc:
        raise AuthError(f"cannot read {ENV_PRIVATE_KEY_FILE} ({key_file}): {exc.strerror}") from None
    return OAuth(
        grant="client_credentials",
        client_id=client_id,
        client_secret=env.get(ENV_CLIENT_SECRET) or None,
        private_key=private_key,
        signing_algorithm=env.get(ENV_SIGNING_ALG, "RS256"),
        scopes=scopes,
        issuer=issuer,
        store=MemoryTokenStore(),  # a CI run's token lives as long as the run
    )
