"""Shared by every test folder: being here puts tests/ on sys.path, so `import serving` and
`import generation` work, and registers the `generate` fixture for every folder."""

from generation import generate  # noqa: F401
