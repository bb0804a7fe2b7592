"""Installed versions read from `.dist-info` folders agree with importlib.metadata, and only an
installed, non-editable mcpgen of this version lets a manifest settle `--check`."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest

from mcpgen import __version__
from mcpgen.output import installed, unchanged


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for cached in (installed._listing, installed.installed_version, unchanged._installed_release):
        cached.cache_clear()
    monkeypatch.delenv(unchanged.TRUST_ENV, raising=False)
    yield
    for cached in (installed._listing, installed.installed_version, unchanged._installed_release):
        cached.cache_clear()


@pytest.mark.parametrize("name", ["ruff", "datamodel-code-generator", "datamodel_code_generator", "pydantic", "PyYAML"])
def test_the_same_version_as_importlib_metadata(fresh: None, name: str) -> None:
    assert installed.installed_version(name) == version(name)


def test_a_distribution_that_is_not_installed(fresh: None) -> None:
    assert installed.dist_info("no-such-distribution-here") is None
    assert installed.installed_version("no-such-distribution-here") == "unknown"


def fake_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version_: str, direct_url: object = None) -> None:
    folder = tmp_path / f"mcpgen-{version_}.dist-info"
    folder.mkdir()
    (folder / "METADATA").write_text(f"Metadata-Version: 2.4\nName: mcpgen\nVersion: {version_}\n\nReadme.\n")
    if direct_url is not None:
        (folder / "direct_url.json").write_text(json.dumps(direct_url))
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])


def test_installed_from_an_index_is_trusted(fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_site(tmp_path, monkeypatch, __version__)
    assert unchanged.manifest_trusted()


def test_installed_from_a_wheel_file_is_trusted(fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake_site(tmp_path, monkeypatch, __version__, {"url": "file:///w/mcpgen.whl", "archive_info": {}})
    assert unchanged.manifest_trusted()


@pytest.mark.parametrize(
    ("version_", "direct_url"),
    [
        (__version__, {"url": "file:///src/mcpgen", "dir_info": {"editable": True}}),  # a source checkout
        ("0.0.1", None),  # another version than the code running
    ],
)
def test_otherwise_not_trusted(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version_: str, direct_url: object
) -> None:
    fake_site(tmp_path, monkeypatch, version_, direct_url)
    assert not unchanged.manifest_trusted()
    monkeypatch.setenv(unchanged.TRUST_ENV, "1")
    assert unchanged.manifest_trusted()
