"""Skills (SEP-2640) on both sides of the runtime: `serve_skills` serves a folder, the client
lists, looks up and reads skills verified, in both eras; a served folder breaking a rule is
refused at startup with one line; a tampered answer is one SkillVerificationError naming the file."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from mcpgen.runtime import Server, Skill, SkillFile, SkillVerificationError, connect_memory, serve_skills
from mcpgen.runtime.client import skills as client_skills
from mcpgen.runtime.core.skills import MAX_FILES, split_frontmatter

pytestmark = pytest.mark.timeout(60)

SKILL_MD = (
    "---\nname: code-review\ndescription: Review code using the team's checklist.\n"
    "metadata:\n  team: core\n---\n\n# Code review\n"
)
CHECKLIST = "# Review checklist\n\nCheck correctness, tests, and compatibility.\n"


def make_folder(root: Path) -> Path:
    skill = root / "skills" / "code-review"
    (skill / "references").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    (skill / "references" / "checklist.md").write_text(CHECKLIST)
    (skill / "logo.bin").write_bytes(bytes(range(256)))
    (skill / ".git").mkdir()
    (skill / ".git" / "HEAD").write_text("hidden: never served")
    return root / "skills"


def server_of(folder: Path) -> Server:
    server = Server("skills", "1.0")
    serve_skills(server, folder)
    return server


def sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_a_served_folder_is_listed_looked_up_and_read_verified(tmp_path: Path, protocol: str) -> None:
    async def run() -> dict[str, Any]:
        async with connect_memory(server_of(make_folder(tmp_path)), protocol=protocol, skills=True) as session:
            listed = await session.list_skills()
            by_uri = await session.get_skill("skill://code-review/SKILL.md")
            by_name = await session.get_skill("code-review")
            skill_md = await session.read_skill_file(by_uri)
            checklist = await session.read_skill_file(by_uri, "references/checklist.md")
            logo = await session.read_skill_file(by_uri, "skill://code-review/logo.bin")
            directory = await session.request("resources/directory/read", {"uri": "skill://code-review"})
            return locals()

    found = asyncio.run(run())
    skill = found["listed"][0]
    assert found["listed"] == [skill] and found["by_uri"] == skill == found["by_name"]
    assert (skill.name, skill.description) == ("code-review", "Review code using the team's checklist.")
    assert skill.frontmatter["metadata"] == {"team": "core"}
    assert skill.files == (
        SkillFile("skill://code-review/SKILL.md", "SKILL.md", sha(SKILL_MD.encode()), len(SKILL_MD)),
        SkillFile("skill://code-review/logo.bin", "logo.bin", sha(bytes(range(256))), 256),
        SkillFile(
            "skill://code-review/references/checklist.md",
            "references/checklist.md",
            sha(CHECKLIST.encode()),
            len(CHECKLIST),
        ),
    )
    assert found["skill_md"].text == SKILL_MD and found["checklist"].text == CHECKLIST
    assert found["logo"].data == bytes(range(256))
    children = {c["uri"]: c["mimeType"] for c in found["directory"]["resources"]}
    assert children == {
        "skill://code-review/SKILL.md": "text/markdown",
        "skill://code-review/logo.bin": "application/octet-stream",
        "skill://code-review/references": "inode/directory",
    }


def test_the_client_declares_the_extension_only_when_asked(tmp_path: Path) -> None:
    server = server_of(make_folder(tmp_path))

    async def declared(**options: Any) -> Any:
        async with connect_memory(server, **options) as session:
            return session.capabilities().get("extensions")

    assert asyncio.run(declared(skills=True)) == {"io.modelcontextprotocol/skills": {}}
    assert asyncio.run(declared()) is None


def tampered(folder: Path, change: Any) -> Server:
    server = server_of(folder)
    entry = server.features.resources["skill://code-review/SKILL.md"]

    async def read(uri: str, ctx: Any) -> Any:
        result = await entry[1](uri, ctx)
        change(result["contents"][0])
        return result

    server.features.resources["skill://code-review/SKILL.md"] = (entry[0], read)
    return server


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda c: c.update(text=c["text"].replace("Code", "Evil")), "does not match its manifest digest"),
        (lambda c: c.update(text=c["text"] + "more"), f"is over {len(SKILL_MD)} bytes, the manifest.s size"),
        (lambda c: c.update(text=c["text"][:-1]), f"is {len(SKILL_MD) - 1} bytes, the manifest says {len(SKILL_MD)}"),
        (lambda c: c.update(uri="skill://other/SKILL.md"), "came back as 0 contents of its URI"),
        (lambda c: (c.pop("text"), c.update(blob="!!")), "came back as invalid base64"),
    ],
)
def test_a_tampered_file_is_one_error_naming_skill_and_file(tmp_path: Path, change: Any, reason: str) -> None:
    async def run() -> None:
        async with connect_memory(tampered(make_folder(tmp_path), change), protocol="2026-07-28") as session:
            (skill,) = await session.list_skills()
            await session.read_skill_file(skill)

    with pytest.raises(SkillVerificationError, match=reason) as caught:
        asyncio.run(run())
    assert caught.value.skill == caught.value.file == "skill://code-review/SKILL.md"


def test_a_frontmatter_differing_from_the_entry_is_refused() -> None:
    body = SKILL_MD.replace("the team's checklist", "nothing").encode()
    entry = {
        "uri": "skill://code-review/SKILL.md",
        "frontmatter": split_frontmatter(SKILL_MD)[0],
        "resources": [{"uri": "skill://code-review/SKILL.md", "digest": sha(body), "size": len(body)}],
    }
    skill = client_skills.parse_entry(entry)

    class Answer:
        server_capabilities: dict[str, Any] = {}

        async def read_resource(self, uri: str) -> Any:
            return {"contents": [{"uri": uri, "text": body.decode()}]}

    with pytest.raises(SkillVerificationError, match=r"differs from its entry's in \['description'\]"):
        asyncio.run(client_skills.read_skill_file(Answer(), skill))  # type: ignore[arg-type]


GOOD = {"uri": "skill://a/SKILL.md", "digest": "sha256:" + "0" * 64, "size": 1}


@pytest.mark.parametrize(
    ("entry", "reason"),
    [
        ({"frontmatter": {"name": "a", "description": "d"}, "resources": []}, "no usable uri"),
        ({"uri": "skill://a/SKILL.md", "resources": "dynamic"}, "no frontmatter object"),
        (
            {"uri": "skill://b/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": "dynamic"},
            "does not end in /a/SKILL.md",
        ),
        (
            {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": 3},
            "neither a list",
        ),
        (
            {
                "uri": "skill://a/SKILL.md",
                "frontmatter": {"name": "a", "description": "d"},
                "resources": [GOOD, {**GOOD, "uri": "skill://a/../x"}],
            },
            "not a file within",
        ),
        (
            {
                "uri": "skill://a/SKILL.md",
                "frontmatter": {"name": "a", "description": "d"},
                "resources": [GOOD, {**GOOD, "uri": "skill://a/%2e%2e/x"}],
            },
            "not a file within",
        ),
        (
            {
                "uri": "skill://a/SKILL.md",
                "frontmatter": {"name": "a", "description": "d"},
                "resources": [{**GOOD, "digest": "md5:0"}],
            },
            "no sha256",
        ),
        (
            {
                "uri": "skill://a/SKILL.md",
                "frontmatter": {"name": "a", "description": "d"},
                "resources": [{**GOOD, "size": True}],
            },
            "non-negative integer size",
        ),
        (
            {"uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"}, "resources": [GOOD, GOOD]},
            "listed twice",
        ),
        (
            {
                "uri": "skill://a/SKILL.md",
                "frontmatter": {"name": "a", "description": "d"},
                "resources": [{**GOOD, "uri": "skill://a/x"}],
            },
            "missing from the skill's own manifest",
        ),
        (
            {
                "uri": "skill://a/SKILL.md",
                "frontmatter": {"name": "a", "description": "d"},
                "resources": [{**GOOD, "size": 17 * 2**20}],
            },
            "over the 16777216 allowed",
        ),
        (
            {
                "uri": "skill://a/SKILL.md",
                "frontmatter": {"name": "a", "description": "d"},
                "resources": [GOOD] + [{**GOOD, "uri": f"skill://a/{i}"} for i in range(MAX_FILES)],
            },
            "513 files, over the 512",
        ),
    ],
)
def test_every_entry_rule_refuses_with_a_reason(entry: dict[str, Any], reason: str) -> None:
    with pytest.raises(SkillVerificationError, match=reason):
        client_skills.parse_entry(entry)


def test_reads_are_restricted_to_the_manifest() -> None:
    skill = Skill(
        "skill://a/SKILL.md", "a", "d", {"name": "a", "description": "d"}, (SkillFile(**GOOD, path="SKILL.md"),)
    )
    with pytest.raises(LookupError, match="has no file 'other.md' in its manifest"):
        skill.file("other.md")


@pytest.mark.parametrize(
    ("arrange", "reason"),
    [
        (
            lambda s: (
                (s / "code-review" / "many").mkdir()
                or [(s / "code-review" / "many" / f"{i}").write_text("x") for i in range(MAX_FILES)]
            ),
            "over 512 files",
        ),
        (lambda s: (s / "code-review" / "big.bin").write_bytes(b"\0" * (16 * 2**20)), "over 16777216 bytes"),
        (lambda s: os.symlink("/etc/hostname", s / "code-review" / "link"), "holds a link"),
        (lambda s: os.symlink(s / "code-review", s / "linked"), "holds a link"),
        (lambda s: (s / "code-review" / "SKILL.md").write_text("no frontmatter"), "does not begin with a ---"),
        (
            lambda s: (s / "code-review" / "SKILL.md").write_text(SKILL_MD.replace("name: code-review", "name: other")),
            "is not its folder's name",
        ),
        (
            lambda s: (s / "Bad_Name").mkdir() or (s / "Bad_Name" / "SKILL.md").write_text(SKILL_MD),
            "breaks the skill naming rule",
        ),
    ],
)
def test_a_folder_breaking_a_rule_is_refused_at_startup(tmp_path: Path, arrange: Any, reason: str) -> None:
    folder = make_folder(tmp_path)
    arrange(folder)
    with pytest.raises(ValueError, match=reason) as caught:
        serve_skills(Server("s", "1"), folder)
    assert "\n" not in str(caught.value)


def test_a_file_changed_after_startup_is_not_served(tmp_path: Path) -> None:
    folder = make_folder(tmp_path)
    server = server_of(folder)
    (folder / "code-review" / "references" / "checklist.md").write_text(CHECKLIST.upper())

    async def run() -> None:
        async with connect_memory(server, protocol="2026-07-28") as session:
            await session.read_resource("skill://code-review/references/checklist.md")

    with pytest.raises(Exception, match="changed since the server started"):
        asyncio.run(run())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "---\nname: a\ndescription: 'it''s'\nlicense: MIT\n---\nbody",
            {"name": "a", "description": "it's", "license": "MIT"},
        ),
        (
            '---\nname: a\ndescription: "x: \\"y\\""\nn: 3\nf: 1.5\nb: true\nz: ~\n---\n',
            {"name": "a", "description": 'x: "y"', "n": 3, "f": 1.5, "b": True, "z": None},
        ),
        (
            "---\nname: a\ndescription: >\n  one\n  two\nallowed-tools: [Read, Grep]\nlist:\n- x\n- y\n---\n",
            {"name": "a", "description": "one two\n", "allowed-tools": ["Read", "Grep"], "list": ["x", "y"]},
        ),
        (
            "---\nname: a\ndescription: d\nmetadata:\n  io.x/k: v # note\n  deep:\n    n: 1\n---\n",
            {"name": "a", "description": "d", "metadata": {"io.x/k": "v", "deep": {"n": 1}}},
        ),
    ],
)
def test_the_frontmatter_reader(text: str, expected: dict[str, Any]) -> None:
    assert split_frontmatter(text)[0] == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\nname: a\ndescription: d\nx: &anchor 1\n---\n", "uses YAML this reader does not take"),
        ("---\nname: a\ndescription: d\nx: *alias\n---\n", "uses YAML this reader does not take"),
        ("---\nname: a\nname: b\ndescription: d\n---\n", "the key 'name' twice"),
        ("---\nname: a\n---\n", "no non-empty string 'description'"),
        ("---\nname: a\ndescription: d\n\tx: 1\n---\n", "tab"),
        ("---\nname: a\ndescription: d\nx: " + "y" * 70000 + "\n---\n", "over 65536 characters"),
    ],
)
def test_the_frontmatter_reader_refuses_what_it_does_not_take(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        split_frontmatter(text)
