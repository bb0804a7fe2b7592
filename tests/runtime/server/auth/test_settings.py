"""Auth settings: flags over MCPGEN_AUTH_* over [tool.mcpgen.auth]; off without an issuer; every
bad value exits with a one-line reason; the secret never comes from pyproject or shows in repr."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from mcpgen.runtime.server.auth.info import requires_scopes
from mcpgen.runtime.server.auth.settings import AuthSettings, add_auth_arguments, auth_from_args

ISSUER = "https://auth.example.com"
RESOURCE = "https://mcp.example.com/mcp"


def settings(argv: list[str], env: dict[str, str] | None = None, cwd: Path | None = None) -> AuthSettings | None:
    parser = argparse.ArgumentParser()
    add_auth_arguments(parser)
    return auth_from_args(parser.parse_args(argv), env or {}, cwd)


def pyproject(folder: Path, auth_table: str) -> Path:
    (folder / "pyproject.toml").write_text(
        f"[tool.mcpgen.targets.x]\nkind = 'server'\n\n[tool.mcpgen.auth]\n{auth_table}"
    )
    return folder


def test_auth_is_off_without_an_issuer(tmp_path: Path) -> None:
    assert settings([], cwd=tmp_path) is None
    assert settings(["--auth-resource", RESOURCE], cwd=tmp_path) is None


def test_flags_win_over_the_environment_which_wins_over_pyproject(tmp_path: Path) -> None:
    project = pyproject(tmp_path, f'issuer = "https://from-pyproject.example"\nresource = "{RESOURCE}"\nscopes = ["a"]')
    nested = project / "src" / "pkg"
    nested.mkdir(parents=True)
    assert settings([], cwd=nested) == AuthSettings("https://from-pyproject.example", RESOURCE, scopes=("a",))
    from_env = settings([], {"MCPGEN_AUTH_ISSUER": ISSUER, "MCPGEN_AUTH_SCOPES": "b c"}, cwd=nested)
    assert from_env == AuthSettings(ISSUER, RESOURCE, scopes=("b", "c"))
    from_flags = settings(
        ["--auth-issuer", "https://flag.example", "--auth-scope", "d", "--auth-leeway", "5"],
        {"MCPGEN_AUTH_ISSUER": ISSUER},
        cwd=nested,
    )
    assert from_flags == AuthSettings("https://flag.example", RESOURCE, scopes=("d",), leeway=5.0)


def test_the_metadata_url_is_the_well_known_path_with_the_resource_path(tmp_path: Path) -> None:
    found = settings(["--auth-issuer", ISSUER, "--auth-resource", RESOURCE], cwd=tmp_path)
    assert found is not None
    assert found.metadata_url == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"


def test_the_client_secret_never_comes_from_pyproject_nor_shows(tmp_path: Path) -> None:
    pyproject(tmp_path, f'issuer = "{ISSUER}"\nresource = "{RESOURCE}"\nclient_secret = "s3cret"')
    with pytest.raises(SystemExit, match="must not hold client_secret"):
        settings([], cwd=tmp_path)
    found = settings(
        [
            "--auth-issuer",
            ISSUER,
            "--auth-resource",
            RESOURCE,
            "--auth-introspection-url",
            f"{ISSUER}/introspect",
            "--auth-client-id",
            "rs",
        ],
        {"MCPGEN_AUTH_CLIENT_SECRET": "s3cret"},
        cwd=tmp_path.parent,
    )
    assert found is not None and found.client_secret == "s3cret"
    assert "s3cret" not in repr(found)


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["--auth-issuer", ISSUER], "--auth-resource"),
        (["--auth-issuer", "http://auth.example.com", "--auth-resource", RESOURCE], "must use https"),
        (["--auth-issuer", "ftp://x", "--auth-resource", RESOURCE], "absolute https URL"),
        (["--auth-issuer", ISSUER, "--auth-resource", RESOURCE + "#x"], "absolute https URL"),
        (["--auth-issuer", ISSUER, "--auth-resource", RESOURCE, "--auth-algorithm", "HS256"], "not accepted"),
        (["--auth-issuer", ISSUER, "--auth-resource", RESOURCE, "--auth-algorithm", "none"], "not accepted"),
        (["--auth-issuer", ISSUER, "--auth-resource", RESOURCE, "--auth-leeway", "nan"], "between 0 and 300"),
        (["--auth-issuer", ISSUER, "--auth-resource", RESOURCE, "--auth-leeway", "x"], "number of seconds"),
        (
            ["--auth-issuer", ISSUER, "--auth-resource", RESOURCE, "--auth-introspection-url", f"{ISSUER}/i"],
            "credentials",
        ),
        (
            ["--auth-issuer", ISSUER, "--auth-resource", RESOURCE]
            + ["--auth-introspection-url", f"{ISSUER}/i", "--auth-jwks-url", f"{ISSUER}/jwks"],
            "not both",
        ),
    ],
)
def test_bad_settings_exit_with_a_reason(tmp_path: Path, argv: list[str], reason: str) -> None:
    with pytest.raises(SystemExit, match=reason):
        settings(argv, cwd=tmp_path)


def test_http_is_allowed_on_loopback_only(tmp_path: Path) -> None:
    loopback = ["--auth-issuer", "http://127.0.0.1:9000", "--auth-resource", "http://localhost:8000/mcp"]
    found = settings(loopback, cwd=tmp_path)
    assert found is not None and found.issuer == "http://127.0.0.1:9000"


def test_unknown_pyproject_keys_are_refused(tmp_path: Path) -> None:
    pyproject(tmp_path, f'issuer = "{ISSUER}"\nresource = "{RESOURCE}"\naudience = "x"')
    with pytest.raises(SystemExit, match="unknown key 'audience'"):
        settings([], cwd=tmp_path)


def test_scopes_are_scope_tokens_so_they_cannot_break_the_challenge_header(tmp_path: Path) -> None:
    base = ["--auth-issuer", ISSUER, "--auth-resource", RESOURCE]
    with pytest.raises(SystemExit, match="list of words"):
        settings(base, {"MCPGEN_AUTH_SCOPES": 'read x"y'}, cwd=tmp_path)
    with pytest.raises(SystemExit, match="list of words"):
        settings([*base, "--auth-scope", "caf\u00e9"], cwd=tmp_path)
    for bad in ("", "a b", 'a"', "a\\b", "a\r\nb"):
        with pytest.raises(ValueError, match="not an OAuth scope"):
            requires_scopes(bad)
