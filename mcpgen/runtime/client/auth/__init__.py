"""Logging in to MCP servers that need OAuth: `connect_http(url, auth=OAuth(...))`.

`OAuth` implements the MCP authorization spec; `TokenProvider` is the smaller interface for
bringing tokens from elsewhere (a secret manager, a cloud SDK); `TokenStore` is where logins are
kept (keyring or a 0600 file). authlib, joserfc, keyring and filelock are the `oauth` extra:
nothing here imports them until a login needs them.

The public names are `__all__` (pinned by tests/runtime/test_public_names.py); the modules
behind them may move between releases.
"""

from ...core.errors import AuthError
from .authorizers import Authorizer, LoopbackBrowser, PasteBack
from .challenge import Challenge, parse_challenge
from .discovery import canonical_resource
from .grants import IdentityProvider
from .oauth import Grant, OAuth
from .provider import BearerToken, TokenProvider
from .store import FileTokenStore, KeyringTokenStore, MemoryTokenStore, TokenStore, config_dir, default_store
from .tokens import Client, Login, Tokens

__all__ = [
    "AuthError",
    "Authorizer",
    "BearerToken",
    "Challenge",
    "Client",
    "FileTokenStore",
    "Grant",
    "IdentityProvider",
    "KeyringTokenStore",
    "Login",
    "LoopbackBrowser",
    "MemoryTokenStore",
    "OAuth",
    "PasteBack",
    "TokenProvider",
    "TokenStore",
    "Tokens",
    "canonical_resource",
    "config_dir",
    "default_store",
    "parse_challenge",
]


def __dir__() -> list[str]:
    return list(__all__)
