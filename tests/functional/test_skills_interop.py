"""Skills (SEP-2640) against FastMCP 4.x, both ways, over stdio:

- a client mcpgen generated from a live FastMCP server (which declares the extension, so the
  catalog records it and the client gets list_skills/get_skill/read_skill_file, sync and async)
  lists FastMCP's skills, fetches them and verifies every file;
- FastMCP's own client (SkillsClientExtension, `read_skill`, which verifies too) uses the skills
  a scaffold serves from its handlers.py SKILLS_DIR (examples/conformance);
- the same generated client reads a scaffold's skill folders (resources/directory/read, sync
  and async), and refuses to ask FastMCP, which does not declare `directoryRead`;
- a FastMCP server whose files no longer match their manifest (a changed word; bytes the
  manifest does not count) gives one SkillVerificationError naming the file, and a scaffold
  whose skills folder is over the bounds refuses to start, with one line.
"""

from __future__ import annotations

import asyncio
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from generation import importable

from mcpgen.generate import generate_client
from mcpgen.options import ClientOptions
from mcpgen.output.write import write_atomic
from mcpgen.runtime import SkillVerificationError
from mcpgen.sources.live import fetch_catalog

pytestmark = [pytest.mark.timeout(180), pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
PEER = str(REPO / "tests/peers/fastmcp_skills_server.py")
CONFORMANCE = REPO / "examples/conformance"
SKILL_MD = "---\nname: code-review\ndescription: Review the diff against the checklist.\n---\n\n# Code review\n"
CHECKLIST = "# Review checklist\n\nCorrectness, tests, compatibility.\n"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    skill = tmp_path / "skills" / "code-review"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references" / "checklist.md").write_text(CHECKLIST)
    return tmp_path / "skills"


@pytest.fixture
def generated(folder: Path, tmp_path: Path) -> Any:
    """The client package generated from the live FastMCP server, imported."""
    catalog = asyncio.run(fetch_catalog(sys.executable, [PEER, str(folder)]))
    assert "io.modelcontextprotocol/skills" in catalog.extensions
    write_atomic(generate_client(catalog, ClientOptions()), tmp_path / "fastmcp_skills_client")
    with importable(tmp_path, "fastmcp_skills_client"):
        yield importlib.import_module("fastmcp_skills_client")


def test_a_generated_client_lists_fetches_and_verifies_fastmcps_skills(generated: Any, folder: Path) -> None:
    async def run() -> tuple[Any, ...]:
        async with generated.AsyncClient.connect_stdio(
            sys.executable, [PEER, str(folder)], protocol="2026-07-28", skills=True
        ) as client:
            (skill,) = await client.list_skills()
            again = await client.get_skill(skill.uri)
            by_name = await client.get_skill("code-review")
            body = await client.read_skill_file(skill)
            checklist = await client.read_skill_file(skill, "references/checklist.md")
            return skill, again, by_name, body.text, checklist.text

    skill, again, by_name, body, checklist = asyncio.run(run())
    assert skill == again == by_name
    assert (skill.uri, skill.name) == ("skill://code-review/SKILL.md", "code-review")
    assert [(f.path, f.size) for f in skill.files] == [
        ("SKILL.md", len(SKILL_MD)),
        ("references/checklist.md", len(CHECKLIST)),
    ]
    assert (body, checklist) == (SKILL_MD, CHECKLIST)
    with generated.Client.connect_stdio(sys.executable, [PEER, str(folder)], protocol="2026-07-28") as sync:
        (listed,) = sync.list_skills()
        assert sync.read_skill_file(listed, "references/checklist.md").text == CHECKLIST


def test_a_generated_client_reads_a_scaffolds_skill_folders_and_not_fastmcps(generated: Any, folder: Path) -> None:
    # (drift off: the client was generated from FastMCP's tools, not the scaffold's)
    scaffold = {"cwd": str(CONFORMANCE), "protocol": "2026-07-28", "drift": "off"}

    async def run() -> tuple[Any, ...]:
        async with generated.AsyncClient.connect_stdio(sys.executable, ["-m", "conformance_server"], **scaffold) as c:
            (skill,) = await c.list_skills()
            top = await c.read_skill_directory(skill)
            references = await c.read_skill_directory(skill, "references")
        return top, references

    top, references = asyncio.run(run())
    root = "skill://pdf-processing"
    assert sorted((e.name, e.is_directory) for e in top) == [("SKILL.md", False), ("references", True)]
    assert [e.uri for e in references] == [f"{root}/references/FORMS.md"]
    with generated.Client.connect_stdio(sys.executable, ["-m", "conformance_server"], **scaffold) as sync:
        (listed,) = sync.list_skills()
        assert sync.read_skill_directory(listed, "references") == references
    with generated.Client.connect_stdio(sys.executable, [PEER, str(folder)], protocol="2026-07-28") as fast:
        (skill,) = fast.list_skills()
        with pytest.raises(LookupError, match="the server does not declare directoryRead"):
            fast.read_skill_directory(skill)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("tamper", "does not match its manifest digest"),
        ("oversize", f"is over {len(SKILL_MD)} bytes, the manifest's size"),
    ],
)
def test_a_fastmcp_file_that_fails_its_manifest_is_one_error_naming_it(
    generated: Any, folder: Path, mode: str, reason: str
) -> None:
    async def run() -> None:
        async with generated.AsyncClient.connect_stdio(sys.executable, [PEER, str(folder), mode]) as client:
            (skill,) = await client.list_skills()
            await client.read_skill_file(skill)

    with pytest.raises(SkillVerificationError, match=reason) as caught:
        asyncio.run(run())
    assert caught.value.file == "skill://code-review/SKILL.md"


def test_fastmcps_client_uses_a_scaffolds_skills() -> None:
    from fastmcp import Client
    from fastmcp.client.transports import StdioTransport
    from fastmcp.skills import SkillsClientExtension

    async def run() -> tuple[Any, Any]:
        transport = StdioTransport(sys.executable, ["-m", "conformance_server"], cwd=str(CONFORMANCE))
        async with Client(transport, extensions=[SkillsClientExtension()]) as client:
            listed = await client.list_skills()
            return listed, await client.read_skill(listed[0].uri)

    listed, skill = asyncio.run(run())
    assert [entry.uri for entry in listed] == ["skill://pdf-processing/SKILL.md"]
    assert skill.name == "pdf-processing"
    served = CONFORMANCE / "skills/pdf-processing"
    assert {path: skill.files[path] for path in skill.files} == {
        "SKILL.md": (served / "SKILL.md").read_bytes(),
        "references/FORMS.md": (served / "references/FORMS.md").read_bytes(),
    }


def test_a_scaffold_whose_skills_are_over_the_bounds_refuses_to_start(tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "conformance"
    shutil.copytree(CONFORMANCE / "conformance_server", copy / "conformance_server")
    shutil.copytree(CONFORMANCE / "skills", copy / "skills")
    (copy / "skills/pdf-processing/big.bin").write_bytes(b"\0" * (16 * 2**20 + 1))
    done = subprocess.run(
        [sys.executable, "-m", "conformance_server"],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("cannot start the server: SKILLS_DIR: the skill folder ")
    assert done.stderr.endswith("has over 16777216 bytes of files, the most a skill may have\n")
    assert done.stderr.count("\n") == 1
