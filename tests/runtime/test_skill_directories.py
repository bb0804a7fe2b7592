"""resources/directory/read on the client (client/skills.py `read_skill_directory`): a skill's
folder listed, typed and checked before any entry is returned, against our server in both eras;
only on a server that declares `directoryRead`; every rule of an answer (direct child, its own
name, listed once, in the manifest, bounded count and pages) refuses a hostile answer with one
SkillVerificationError naming the entry."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from test_skills import make_folder, server_of

from mcpgen.runtime import RequestContext, Server, Skill, SkillDirectoryEntry, SkillVerificationError, connect_memory
from mcpgen.runtime.client.skills import MAX_DIRECTORY_PAGES, SkillFile
from mcpgen.runtime.core.skills import DIRECTORY_MIME_TYPE, EXTENSION_ID, MAX_FILES

pytestmark = pytest.mark.timeout(60)

ROOT = "skill://code-review"
SKILL = Skill(
    f"{ROOT}/SKILL.md",
    "code-review",
    "Review code.",
    {"name": "code-review", "description": "Review code."},
    (
        SkillFile(f"{ROOT}/SKILL.md", "SKILL.md", "sha256:" + "0" * 64, 10),
        SkillFile(f"{ROOT}/references/checklist.md", "references/checklist.md", "sha256:" + "1" * 64, 10),
    ),
)


@pytest.mark.parametrize("protocol", ["legacy", "2026-07-28"])
def test_our_servers_folders_are_listed_typed(tmp_path: Path, protocol: str) -> None:
    async def run() -> tuple[Any, ...]:
        async with connect_memory(server_of(make_folder(tmp_path)), protocol=protocol, skills=True) as session:
            (skill,) = await session.list_skills()
            top = await session.read_skill_directory(skill)
            (folder,) = [entry for entry in top if entry.is_directory]
            by_path = await session.read_skill_directory(skill, "references/")
            by_uri = await session.read_skill_directory(skill, folder.uri)
            return top, by_path, by_uri

    top, by_path, by_uri = asyncio.run(run())
    assert {(e.uri, e.name, e.is_directory) for e in top} == {
        (f"{ROOT}/SKILL.md", "SKILL.md", False),
        (f"{ROOT}/logo.bin", "logo.bin", False),
        (f"{ROOT}/references", "references", True),
    }
    assert (
        by_path == by_uri == [SkillDirectoryEntry(f"{ROOT}/references/checklist.md", "checklist.md", "text/markdown")]
    )


def hostile(answer: Any, directory_read: Any = True) -> Server:
    """A server declaring Skills (with `directoryRead` as given) that answers every folder read
    with `answer` (a function of the request's params, or a fixed result)."""
    server = Server("hostile", "1.0", capabilities={"extensions": {EXTENSION_ID: {"directoryRead": directory_read}}})

    async def read(params: dict[str, Any], ctx: RequestContext) -> Any:
        return answer(params) if callable(answer) else answer

    server.add_method("resources/directory/read", read)
    return server


def read_from(server: Server, path: str = "") -> list[SkillDirectoryEntry]:
    async def run() -> list[SkillDirectoryEntry]:
        async with connect_memory(server, skills=True) as session:
            return await session.read_skill_directory(SKILL, path)

    return asyncio.run(run())


@pytest.mark.parametrize("declared", [False, None, "yes"])
def test_nothing_is_sent_unless_the_server_declares_directory_read(declared: Any) -> None:
    asked: list[Any] = []
    server = hostile(lambda params: asked.append(params) or {"resources": []}, directory_read=declared)
    with pytest.raises(LookupError, match="the server does not declare directoryRead"):
        read_from(server)
    assert asked == []


@pytest.mark.parametrize("path", ["../other", "references/../../x", "skill://other/references", "a//b"])
def test_a_path_outside_the_skill_is_refused_before_sending(path: str) -> None:
    with pytest.raises(LookupError, match="is no folder of the skill"):
        read_from(hostile({"resources": []}), path)


def entry(uri: str, name: str | None = None, mime: Any = "text/markdown") -> dict[str, Any]:
    return {"uri": uri, "name": uri.rsplit("/", 1)[-1] if name is None else name, "mimeType": mime}


@pytest.mark.parametrize(
    ("answer", "reason"),
    [
        ({}, "was answered with no resources list"),
        ({"resources": [entry("skill://other/SKILL.md")]}, "is no direct entry of the folder"),
        ({"resources": [entry(f"{ROOT}/references/checklist.md")]}, "is no direct entry of the folder"),
        ({"resources": [entry(f"{ROOT}/../x.md")]}, "is no direct entry of the folder"),
        ({"resources": [entry(f"{ROOT}/%2e%2e")]}, "is no direct entry of the folder"),
        ({"resources": ["skill://code-review/SKILL.md"]}, "is no direct entry of the folder"),
        ({"resources": [entry(f"{ROOT}/" + "x" * 3000)]}, "is no direct entry of the folder"),
        ({"resources": [entry(f"{ROOT}/SKILL.md", "README.md")]}, "is listed under another name"),
        ({"resources": [entry(f"{ROOT}/SKILL.md", mime=3)]}, "MIME type that is not a short string"),
        ({"resources": [entry(f"{ROOT}/SKILL.md")] * 2}, "is listed twice in its folder"),
        ({"resources": [entry(f"{ROOT}/extra.py")]}, "is listed in its folder but not in the skill's manifest"),
        ({"resources": [entry(f"{ROOT}/f{i}") for i in range(MAX_FILES + 1)]}, f"has over {MAX_FILES} entries"),
        ({"resources": [], "nextCursor": 7}, "nextCursor that is not a string"),
        ({"resources": [], "nextCursor": "again"}, f"still had a nextCursor after {MAX_DIRECTORY_PAGES} pages"),
    ],
)
def test_every_rule_of_an_answer_refuses_with_one_error(answer: Any, reason: str) -> None:
    with pytest.raises(SkillVerificationError, match=reason) as caught:
        read_from(hostile(answer))
    assert caught.value.skill == SKILL.uri


def test_pages_are_followed_and_a_folder_entry_may_be_read_in_turn() -> None:
    pages = {
        None: {"resources": [entry(f"{ROOT}/SKILL.md")], "nextCursor": "2"},
        "2": {"resources": [entry(f"{ROOT}/references", mime=DIRECTORY_MIME_TYPE)]},
    }
    found = read_from(hostile(lambda params: pages[params.get("cursor")]))
    assert [(e.name, e.is_directory) for e in found] == [("SKILL.md", False), ("references", True)]
