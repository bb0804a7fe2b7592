"""Where logins are kept between runs: the OS keyring when it has a usable backend, else a file
readable by its owner only (0600) under the user's config directory.

Both stores hold one JSON record per resource (the MCP server's canonical URL). Refreshing is
serialised across processes by a lock file per resource (`refresh_lock`): the process that holds
it re-reads the record first, so a refresh token is redeemed once even when two processes find
their token expiring at the same moment.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
import tempfile
from collections.abc import Generator
from pathlib import Path
from typing import Any, Protocol

from ...core.errors import AuthError
from ...core.jsonrpc import is_array
from .tokens import Login

_SERVICE = "mcpgen"
_INDEX = "__index__"


def config_dir() -> Path:
    """$MCPGEN_CONFIG_DIR, else the platform's per-user config directory, + mcpgen."""
    explicit = os.environ.get("MCPGEN_CONFIG_DIR")
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config")
    return base / "mcpgen"


def _key(resource: str) -> str:
    return hashlib.sha256(resource.encode("utf-8")).hexdigest()[:32]


class TokenStore(Protocol):
    """Keeps one Login per resource. Implement it to keep logins elsewhere (a vault, a database)."""

    def load(self, resource: str) -> Login | None: ...

    def save(self, login: Login) -> None: ...

    def delete(self, resource: str) -> bool: ...

    def resources(self) -> list[str]: ...


class MemoryTokenStore:
    """Logins for this process only (tests, one-off scripts)."""

    def __init__(self) -> None:
        self._logins: dict[str, dict[str, Any]] = {}

    def load(self, resource: str) -> Login | None:
        return Login.from_json(self._logins.get(resource))

    def save(self, login: Login) -> None:
        self._logins[login.resource] = login.to_json()

    def delete(self, resource: str) -> bool:
        return self._logins.pop(resource, None) is not None

    def resources(self) -> list[str]:
        return sorted(self._logins)


class FileTokenStore:
    """One 0600 JSON file per resource in a 0700 directory; writes are atomic (rename)."""

    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir() / "tokens"

    def _path(self, resource: str) -> Path:
        return self.directory / f"{_key(resource)}.json"

    def load(self, resource: str) -> Login | None:
        check_private(self.directory)
        try:
            data = json.loads(self._path(resource).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        login = Login.from_json(data)
        return login if login is not None and login.resource == resource else None

    def save(self, login: Login) -> None:
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        check_private(self.directory)
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".login-", suffix=".tmp")  # mkstemp: 0600
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump(login.to_json(), file)
            os.replace(tmp, self._path(login.resource))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def delete(self, resource: str) -> bool:
        try:
            self._path(resource).unlink()
        except FileNotFoundError:
            return False
        return True

    def resources(self) -> list[str]:
        check_private(self.directory)
        found: list[str] = []
        for path in sorted(self.directory.glob("*.json")):
            with contextlib.suppress(OSError, ValueError):
                login = Login.from_json(json.loads(path.read_text(encoding="utf-8")))
                if login is not None:
                    found.append(login.resource)
        return sorted(found)


class KeyringTokenStore:
    """The OS keyring (macOS Keychain, Windows Credential Locker, Secret Service), through keyring."""

    def __init__(self) -> None:
        import keyring

        self._keyring = keyring

    def load(self, resource: str) -> Login | None:
        raw = self._keyring.get_password(_SERVICE, resource)
        if raw is None:
            return None
        try:
            return Login.from_json(json.loads(raw))
        except ValueError:
            return None

    def save(self, login: Login) -> None:
        self._keyring.set_password(_SERVICE, login.resource, json.dumps(login.to_json()))
        names = set(self.resources()) | {login.resource}
        self._keyring.set_password(_SERVICE, _INDEX, json.dumps(sorted(names)))

    def delete(self, resource: str) -> bool:
        try:
            self._keyring.delete_password(_SERVICE, resource)
        except Exception:  # keyring.errors.PasswordDeleteError: nothing stored
            return False
        names = set(self.resources()) - {resource}
        self._keyring.set_password(_SERVICE, _INDEX, json.dumps(sorted(names)))
        return True

    def resources(self) -> list[str]:
        raw = self._keyring.get_password(_SERVICE, _INDEX)
        try:
            names = json.loads(raw or "[]")
        except ValueError:
            return []
        return sorted(str(n) for n in names) if is_array(names) else []


def check_private(directory: Path) -> None:
    """A directory logins are read from or written to must be the user's alone: one that others
    can write to (or that another user owns) could hold a planted login, whose refresh token and
    client would go to the planter's authorization server. Refused, with the fix; absent is fine."""
    if not hasattr(os, "getuid"):
        return  # Windows: the profile directory's ACLs decide
    try:
        info = directory.stat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise AuthError(f"cannot check the token store {directory}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise AuthError(f"refusing the token store {directory}: it is not a directory")
    if info.st_uid != os.getuid():
        raise AuthError(f"refusing the token store {directory}: another user owns it")
    if info.st_mode & 0o022:
        raise AuthError(
            f"refusing the token store {directory}: others can write to it (mode {stat.S_IMODE(info.st_mode):o};"
            f" chmod 700 {directory})"
        )


def _keyring_usable() -> bool:
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return False
    backend = keyring.get_keyring()
    priority = getattr(backend, "priority", 0)
    return not isinstance(backend, fail.Keyring) and isinstance(priority, (int, float)) and priority > 0


def default_store() -> TokenStore:
    """MCPGEN_TOKEN_STORE=file|keyring decides; unset: the keyring if usable, else the file store."""
    choice = os.environ.get("MCPGEN_TOKEN_STORE", "").lower()
    if choice == "keyring" or (choice != "file" and _keyring_usable()):
        return KeyringTokenStore()
    return FileTokenStore()


@contextlib.contextmanager
def refresh_lock(resource: str, timeout: float = 60.0) -> Generator[None, None, None]:
    """Held while a process refreshes (or logs in to) one resource; blocks other processes."""
    from filelock import FileLock

    directory = config_dir() / "locks"
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    check_private(directory)
    with FileLock(str(directory / f"{_key(resource)}.lock"), timeout=timeout):
        yield
