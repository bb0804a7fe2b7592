"""The Skills methods of a generated client whose source declares the Skills extension
(SEP-2640): `AsyncSkills` for AsyncClient, `SyncSkills` for the sync Client. The wire shapes and
the verification stay in skills.py; these only hand the calls to the session."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from .session import ClientSession
    from .skills import Skill, SkillDirectoryEntry, SkillFileContent

_T = TypeVar("_T")


class AsyncSkills:
    """list_skills, get_skill, read_skill_file and read_skill_directory for AsyncClient."""

    _session: ClientSession

    async def list_skills(self) -> list[Skill]:
        """Every skill the server lists (all pages), each entry checked; no file is read."""
        return await self._session.list_skills()

    async def get_skill(self, name_or_uri: str) -> Skill:
        """One skill, by its SKILL.md URI (skills/get) or by its name among the listed ones."""
        return await self._session.get_skill(name_or_uri)

    async def read_skill_file(self, skill: Skill, path: str = "SKILL.md") -> SkillFileContent:
        """One file of `skill` (a manifest path or URI), verified against the manifest (size,
        SHA-256 digest; SKILL.md also its frontmatter) before it is returned:
        SkillVerificationError naming the skill and the file otherwise."""
        return await self._session.read_skill_file(skill, path)

    async def read_skill_directory(self, skill: Skill, path: str = "") -> list[SkillDirectoryEntry]:
        """The entries of one folder of `skill` ("" for its own; resources/directory/read), each
        checked: a direct child of the folder, named by its URI, a manifest file or a folder, at
        most 512. LookupError, with nothing sent, when the server does not declare directoryRead."""
        return await self._session.read_skill_directory(skill, path)


class _Runner(Protocol):
    def run(self, coro: Coroutine[Any, Any, _T]) -> _T: ...


class _SyncHost(Protocol):
    """SyncClientBase's `mcpgen_` members (see features.py's twin)."""

    @property
    def mcpgen_inner(self) -> AsyncSkills: ...

    @property
    def mcpgen_runner(self) -> _Runner: ...


class SyncSkills:
    """The same methods for the sync Client (each runs on the client's loop thread)."""

    def list_skills(self: _SyncHost) -> list[Skill]:
        return self.mcpgen_runner.run(self.mcpgen_inner.list_skills())

    def get_skill(self: _SyncHost, name_or_uri: str) -> Skill:
        return self.mcpgen_runner.run(self.mcpgen_inner.get_skill(name_or_uri))

    def read_skill_file(self: _SyncHost, skill: Skill, path: str = "SKILL.md") -> SkillFileContent:
        return self.mcpgen_runner.run(self.mcpgen_inner.read_skill_file(skill, path))

    def read_skill_directory(self: _SyncHost, skill: Skill, path: str = "") -> list[SkillDirectoryEntry]:
        return self.mcpgen_runner.run(self.mcpgen_inner.read_skill_directory(skill, path))
