"""Where logins are kept, in process: the config directory each platform uses, the memory, file
and keyring stores (the keyring is an in-memory backend registered with the real `keyring`
package), the refusal of a store directory someone else could plant a login in, the choice of
the default store, and the per-resource refresh lock."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

import filelock
import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError

from mcpgen.runtime.client.auth import store as store_module
from mcpgen.runtime.client.auth.store import (
    FileTokenStore,
    KeyringTokenStore,
    MemoryTokenStore,
    check_private,
    config_dir,
    default_store,
    refresh_lock,
)
from mcpgen.runtime.client.auth.tokens import Client, Login, Tokens
from mcpgen.runtime.core.errors import AuthError


def login(resource: str = "https://h/mcp", refresh: str = "rt") -> Login:
    return Login(resource, "https://as", Client("id", "sec", "client_secret_basic"), Tokens("at", "Bearer", refresh))


class MemoryKeyring(KeyringBackend):
    """A usable keyring backend holding passwords in a dict."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        if self.passwords.pop((service, username), None) is None:
            raise PasswordDeleteError("not stored")


@pytest.fixture
def backend() -> Any:
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


@pytest.mark.parametrize(
    ("platform", "environ", "expected"),
    [
        ("linux", {"MCPGEN_CONFIG_DIR": "/srv/cfg"}, "/srv/cfg"),
        ("linux", {"XDG_CONFIG_HOME": "/x"}, "/x/mcpgen"),
        ("linux", {}, "HOME/.config/mcpgen"),
        ("darwin", {}, "HOME/Library/Application Support/mcpgen"),
        ("win32", {"APPDATA": "/appdata"}, "/appdata/mcpgen"),
        ("win32", {}, "HOME/AppData/Roaming/mcpgen"),
    ],
)
def test_the_config_directory_of_each_platform(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, platform: str, environ: dict[str, str], expected: str
) -> None:
    for name in ("MCPGEN_CONFIG_DIR", "XDG_CONFIG_HOME", "APPDATA"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(sys, "platform", platform)
    assert config_dir() == Path(expected.replace("HOME", str(tmp_path)))


def test_the_memory_store_keeps_logins_for_the_process() -> None:
    store = MemoryTokenStore()
    assert store.load("https://h/mcp") is None and store.resources() == []
    store.save(login("https://b/mcp"))
    store.save(login("https://a/mcp"))
    loaded = store.load("https://a/mcp")
    assert loaded is not None and loaded.tokens is not None and loaded.tokens.refresh_token == "rt"
    assert store.resources() == ["https://a/mcp", "https://b/mcp"]
    assert store.delete("https://a/mcp") and not store.delete("https://a/mcp")
    assert store.resources() == ["https://b/mcp"]


def test_the_file_store_lives_under_the_config_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MCPGEN_CONFIG_DIR", str(tmp_path / "cfg"))
    store = FileTokenStore()
    store.save(login())
    assert store.directory == tmp_path / "cfg" / "tokens"
    assert [p.suffix for p in store.directory.iterdir()] == [".json"]  # no temporary file left


def test_a_login_is_filed_under_the_same_name_by_every_release(tmp_path: Path) -> None:
    """The file name is the first 32 hex digits of the resource's SHA-256: a login saved by an
    earlier release is found by a later one."""
    store = FileTokenStore(tmp_path / "tokens")
    store.save(login("https://h/mcp"))
    expected = hashlib.sha256(b"https://h/mcp").hexdigest()[:32] + ".json"
    assert [p.name for p in store.directory.iterdir()] == [expected]


def test_saving_into_a_directory_others_can_write_to_is_refused(tmp_path: Path) -> None:
    directory = tmp_path / "tokens"
    directory.mkdir()
    directory.chmod(0o777)
    with pytest.raises(AuthError, match="others can write to it"):
        FileTokenStore(directory).save(login())
    assert list(directory.iterdir()) == []


def test_the_file_store_lists_only_readable_logins_sorted(tmp_path: Path) -> None:
    store = FileTokenStore(tmp_path / "tokens")
    assert store.resources() == [] and store.load("https://h/mcp") is None  # no directory yet
    for resource in ("https://b/mcp", "https://a/mcp"):
        store.save(login(resource))
    (store.directory / "junk.json").write_text("[1, 2]", encoding="utf-8")
    (store.directory / "broken.json").write_text("{", encoding="utf-8")
    assert store.resources() == ["https://a/mcp", "https://b/mcp"]
    store.save(login("https://a/mcp", refresh="rt2"))  # saving again replaces
    again = store.load("https://a/mcp")
    assert again is not None and again.tokens is not None and again.tokens.refresh_token == "rt2"


def test_a_failed_file_save_leaves_no_temporary_file_and_the_old_login(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    store = FileTokenStore(tmp_path / "tokens")
    store.save(login())

    def full(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store_module.os, "replace", full)
    with pytest.raises(OSError, match="No space left on device"):
        store.save(login(refresh="new"))
    monkeypatch.undo()
    assert len(list(store.directory.iterdir())) == 1
    kept = store.load("https://h/mcp")
    assert kept is not None and kept.tokens is not None and kept.tokens.refresh_token == "rt"


def test_the_keyring_store_keeps_an_index_of_its_resources(backend: MemoryKeyring) -> None:
    store = KeyringTokenStore()
    assert store.load("https://h/mcp") is None and store.resources() == []
    store.save(login("https://b/mcp"))
    store.save(login("https://a/mcp"))
    loaded = store.load("https://a/mcp")
    assert loaded is not None and loaded.resource == "https://a/mcp"
    assert store.resources() == ["https://a/mcp", "https://b/mcp"]
    assert json.loads(backend.passwords[("mcpgen", "__index__")]) == ["https://a/mcp", "https://b/mcp"]
    assert store.delete("https://a/mcp") and not store.delete("https://a/mcp")
    assert store.resources() == ["https://b/mcp"]


def test_the_keyring_store_survives_corrupt_entries(backend: MemoryKeyring) -> None:
    store = KeyringTokenStore()
    backend.passwords[("mcpgen", "https://h/mcp")] = "{not json"
    assert store.load("https://h/mcp") is None
    for index in ("{not json", '{"a": 1}'):
        backend.passwords[("mcpgen", "__index__")] = index
        assert store.resources() == []
    backend.passwords[("mcpgen", "__index__")] = '["b", 7]'
    assert store.resources() == ["7", "b"]


def test_a_store_directory_others_can_write_to_is_refused_with_the_fix(tmp_path: Path) -> None:
    directory = tmp_path / "tokens"
    check_private(directory)  # absent is fine
    FileTokenStore(directory).save(login())
    directory.chmod(0o777)
    reason = f"refusing the token store {directory}: others can write to it (mode 777; chmod 700 {directory})"
    for read in (FileTokenStore(directory).load, lambda _: FileTokenStore(directory).resources()):
        with pytest.raises(AuthError, match=f"^{re.escape(reason)}$"):
            read("https://h/mcp")
    directory.chmod(0o720)  # group-writable is others too
    with pytest.raises(AuthError, match=r"\(mode 720; chmod 700 "):
        check_private(directory)
    for fine in (0o750, 0o755, 0o711):  # read or enter is not write
        directory.chmod(fine)
        check_private(directory)


def test_a_store_that_is_no_directory_or_not_ours_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    plain = tmp_path / "file"
    plain.write_text("", encoding="utf-8")
    with pytest.raises(AuthError, match=f"^refusing the token store {re.escape(str(plain))}: it is not a directory$"):
        check_private(plain)
    with pytest.raises(AuthError, match=f"^cannot check the token store {re.escape(str(plain))}/x: Not a directory$"):
        check_private(plain / "x")
    uid = os.getuid()
    monkeypatch.setattr(os, "getuid", lambda: uid + 1)
    with pytest.raises(AuthError, match=f"^refusing the token store {re.escape(str(tmp_path))}: another user owns it$"):
        check_private(tmp_path)


def test_the_default_store_is_the_keyring_when_usable(monkeypatch: pytest.MonkeyPatch) -> None:
    previous = keyring.get_keyring()
    try:
        monkeypatch.setenv("MCPGEN_TOKEN_STORE", "File")
        assert isinstance(default_store(), FileTokenStore)
        monkeypatch.setenv("MCPGEN_TOKEN_STORE", "keyring")
        assert isinstance(default_store(), KeyringTokenStore)
        monkeypatch.delenv("MCPGEN_TOKEN_STORE")
        keyring.set_keyring(keyring.backends.fail.Keyring())
        assert isinstance(default_store(), FileTokenStore)
        keyring.set_keyring(MemoryKeyring())
        assert isinstance(default_store(), KeyringTokenStore)
        unusable = MemoryKeyring()
        unusable.priority = 0  # type: ignore[misc]
        keyring.set_keyring(unusable)
        assert isinstance(default_store(), FileTokenStore)
        monkeypatch.setitem(sys.modules, "keyring", None)  # not installed
        assert isinstance(default_store(), FileTokenStore)
    finally:
        keyring.set_keyring(previous)


def test_the_refresh_lock_is_private_and_held_by_one_at_a_time(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MCPGEN_CONFIG_DIR", str(tmp_path / "cfg"))
    with refresh_lock("https://h/mcp"):
        locks = tmp_path / "cfg" / "locks"
        assert stat.S_IMODE(locks.stat().st_mode) == 0o700
        with pytest.raises(filelock.Timeout, match=r"^The file lock '.+\.lock' could not be acquired\.$"):
            with refresh_lock("https://h/mcp", timeout=0.05):
                pass
        with refresh_lock("https://other/mcp", timeout=0.05):  # another resource: its own lock
            pass
    with refresh_lock("https://h/mcp", timeout=0.05):  # released
        pass
    (tmp_path / "cfg" / "locks").chmod(0o777)
    with pytest.raises(AuthError, match="others can write to it"):
        with refresh_lock("https://h/mcp"):
            pass
