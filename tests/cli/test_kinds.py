"""kinds.py: the kind a target's options and source make, what each kind's manifest records,
and the user files a server scaffold hands over (the contract test only with --runtime import)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpgen.cli import main
from mcpgen.config import SourceSpec, Target
from mcpgen.kinds import ClientKind, DocsKind, ManyClientKind, ServerKind, kind_for
from mcpgen.options import ClientOptions, DocsOptions, Layout, Runtime, ServerOptions
from mcpgen.output.manifest import MANIFEST_NAME

REPO = Path(__file__).resolve().parents[2]
TIME = REPO / "tests/golden/inputs/time.raw.json"
FILES = SourceSpec(files=(TIME,))
MANY = SourceSpec(config=Path("mcp.json"))


def test_the_options_and_the_source_make_the_kind() -> None:
    assert kind_for(ClientOptions(), FILES) == ClientKind(ClientOptions())
    assert kind_for(ClientOptions(), MANY) == ManyClientKind(ClientOptions())
    assert kind_for(ServerOptions(add_missing=True), FILES) == ServerKind(ServerOptions(add_missing=True))
    assert kind_for(DocsOptions(), FILES) == DocsKind()
    names = [
        (k.name, k.named, k.uses_models, k.settled_by_manifest)
        for k in (ClientKind, ManyClientKind, ServerKind, DocsKind)
    ]
    assert names == [
        ("client", True, True, True),
        ("client", True, True, False),  # live servers: asked each time
        ("server", True, True, True),
        ("docs", False, False, False),
    ]


def _target(generator: ClientOptions | ServerOptions | DocsOptions) -> Target:
    return Target(name="t", source=FILES, output=Path("out"), package="pkg", generator=generator)


def test_each_kind_records_the_options_that_shape_its_output() -> None:
    def recorded(generator: ClientOptions | ServerOptions | DocsOptions) -> dict[str, object]:
        return kind_for(generator, FILES).manifest_options(_target(generator))

    assert recorded(ClientOptions()) == {"templates": None, "runtime": "import"}  # a flat client: no name
    assert recorded(ClientOptions(runtime=Runtime.VENDOR, sync=False, layout=Layout.CODE_MODE)) == {
        "templates": None,
        "runtime": "vendor",
        "layout": "code-mode",
        "name": "pkg",
        "sync": False,
    }
    assert recorded(ServerOptions(add_missing=True)) == {"templates": None, "runtime": "import", "name": "pkg"}
    assert recorded(DocsOptions()) == {"templates": None}


@pytest.mark.parametrize("runtime", ["import", "vendor"])
def test_a_scaffold_hands_over_handlers_and_the_contract_test(
    runtime: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "pkg"
    with pytest.raises(SystemExit, match=r"^0$") as ei:
        main(["server", str(TIME), "-o", str(out), "--runtime", runtime])
    err = capsys.readouterr().err
    assert ei.value.code == 0, err
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert manifest["user_files"] == ["handlers.py", "test_pkg_contract.py"]  # the user's either way
    assert "handlers.py" not in manifest["files"] and (out / "handlers.py").is_file()
    # The contract tests run on mcpgen's testing kit, which a vendored package does without.
    assert (out / "test_pkg_contract.py").is_file() is (runtime == "import")
    assert ("test_pkg_contract.py: run pytest there" in err) is (runtime == "import")
