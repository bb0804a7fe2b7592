"""Shared by every test folder: being here puts tests/ on sys.path, so `import serving` and
`import generation` work, and registers the `generate` and `oauth_peer` fixtures for every folder."""

from generation import generate  # noqa: F401
from oauth_peer import oauth_peer  # noqa: F401
