"""Skills (the `io.modelcontextprotocol/skills` extension, SEP-2640), the server's side: serve a
folder of skill folders (`serve_skills(server, "skills/")`, or a scaffold's `SKILLS_DIR`).

Each direct subfolder holding a SKILL.md is a skill, named by its folder (the frontmatter's
`name` must be the same and follow the Agent Skills naming rule), served at
`skill://<name>/SKILL.md`; every other file under it is one of its supporting files. The folder is
read once, at startup: sizes and SHA-256 digests are computed then, and a folder that breaks a
rule is refused there, with a one-line reason (ValueError), before anything is served:

- a skill holds at most MAX_FILES files and MAX_BYTES bytes (counted while walking: a folder
  far beyond the bounds is not walked to its end);
- links are not followed: a symbolic link anywhere under the folder is refused, and files are
  opened with O_NOFOLLOW, so no read leaves the folder;
- hidden files and folders (a leading dot) are left out, as version-control litter is.

What is served: skills/list and skills/get (one entry per skill: its frontmatter and the complete
manifest), each file through resources/read (listed in resources/list; SKILL.md with the
frontmatter's name and description), and resources/directory/read on each skill folder and
subfolder (`directoryRead: true`). A file changed on disk since startup no longer matches the
manifest: its read fails (-32603) rather than serve bytes the manifest does not describe.
"""

from __future__ import annotations

import base64
import mimetypes
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from ..core import jsonrpc
from ..core.errors import RpcError
from ..core.jsonrpc import JSONObject
from ..core.protocol import ERA_MODERN
from ..core.skills import (
    DIRECTORY_MIME_TYPE,
    EXTENSION_ID,
    MAX_BYTES,
    MAX_FILES,
    NAME_PATTERN,
    SKILL_MD,
    digest_of,
    split_frontmatter,
)
from .features import ResourceHandler

if TYPE_CHECKING:
    from .server import RequestContext, Server

SCHEME = "skill://"
# skills/list and skills/get results are cacheable (SEP-2549): no caching unless asked.
_CACHE_FIELDS: JSONObject = {"ttlMs": 0, "cacheScope": "public"}


@dataclass(frozen=True)
class _File:
    path: Path
    uri: str
    relative: str
    size: int
    digest: str
    mime_type: str


@dataclass
class _Skill:
    uri: str
    root: str
    frontmatter: JSONObject
    files: list[_File]
    # Directory URI -> its direct children (what resources/directory/read answers).
    directories: dict[str, list[JSONObject]] = field(default_factory=dict[str, list[JSONObject]])

    def entry(self) -> JSONObject:
        return {
            "uri": self.uri,
            "frontmatter": self.frontmatter,
            "resources": [{"uri": f.uri, "digest": f.digest, "size": f.size} for f in self.files],
        }


def scan_skills(folder: str | os.PathLike[str]) -> list[_Skill]:
    """Every skill under `folder`, checked and measured (see the module docstring)."""
    top = Path(folder)
    if top.is_symlink() or not top.is_dir():
        raise ValueError(f"the skills folder {str(top)!r:.200} is not a folder (links are not followed)")
    skills: list[_Skill] = []
    for child in sorted(os.scandir(top), key=lambda e: e.name):
        if child.name.startswith(".") or not child.is_dir(follow_symlinks=False):
            if child.is_symlink():
                raise ValueError(f"the skills folder holds a link, {child.path!r:.200} (links are not followed)")
            continue
        if os.path.lexists(os.path.join(child.path, SKILL_MD)):
            skills.append(_scan_skill(Path(child.path)))
    return skills


def _scan_skill(folder: Path) -> _Skill:
    name = folder.name
    where = f"the skill folder {str(folder)!r:.200}"
    if not NAME_PATTERN.fullmatch(name):
        raise ValueError(f"{where}: {name!r:.80} breaks the skill naming rule (a-z, 0-9, single inner hyphens)")
    found = _walk(folder, where)
    root = SCHEME + name
    files: list[_File] = []
    for path, size in found:
        relative = path.relative_to(folder).as_posix()
        data = _read(path, size)
        mime = "text/markdown" if path.suffix == ".md" else mimetypes.guess_type(path.name)[0]
        uri = root + "/" + "/".join(quote(part, safe="") for part in relative.split("/"))
        files.append(_File(path, uri, relative, size, digest_of(data), mime or "application/octet-stream"))
    skill_md = next((f for f in files if f.relative == SKILL_MD), None)
    if skill_md is None or skill_md.path.is_symlink():
        raise ValueError(f"{where} has no SKILL.md file")
    try:
        frontmatter, _ = split_frontmatter(_read(skill_md.path, skill_md.size).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"{where}: SKILL.md: {exc}") from None
    if frontmatter.get("name") != name:
        raise ValueError(f"{where}: SKILL.md's name {frontmatter.get('name')!r:.80} is not its folder's name")
    files.sort(key=lambda f: (f.relative != SKILL_MD, f.relative))
    skill = _Skill(skill_md.uri, root, frontmatter, files)
    _index_directories(skill)
    return skill


def _walk(folder: Path, where: str) -> list[tuple[Path, int]]:
    """(path, size) of every file under `folder`, refused past the bounds or at a link."""
    found: list[tuple[Path, int]] = []
    total = 0
    pending = [folder]
    while pending:
        for entry in sorted(os.scandir(pending.pop()), key=lambda e: e.name):
            if entry.name.startswith("."):
                continue
            if entry.is_symlink():
                raise ValueError(f"{where} holds a link, {entry.path!r:.200} (links are not followed)")
            if entry.is_dir(follow_symlinks=False):
                pending.append(Path(entry.path))
                continue
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                raise ValueError(f"{where} holds {entry.path!r:.200}, which is no regular file")
            total += info.st_size
            found.append((Path(entry.path), info.st_size))
            if len(found) > MAX_FILES:
                raise ValueError(f"{where} has over {MAX_FILES} files, the most a skill may have")
            if total > MAX_BYTES:
                raise ValueError(f"{where} has over {MAX_BYTES} bytes of files, the most a skill may have")
    return found


def _read(path: Path, size: int) -> bytes:
    """The file's bytes, opened without following a link, never more than `size` + 1 read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as file:
        return file.read(size + 1)


def _index_directories(skill: _Skill) -> None:
    """Each folder's direct children: files, and subfolders as `inode/directory` resources."""
    directories: dict[str, dict[str, JSONObject]] = {skill.root: {}}
    for f in skill.files:
        parts = f.uri[len(skill.root) + 1 :].split("/")
        parent = skill.root
        for part in parts[:-1]:
            child = f"{parent}/{part}"
            directories.setdefault(child, {})
            directories[parent][child] = {"uri": child, "name": part, "mimeType": DIRECTORY_MIME_TYPE}
            parent = child
        directories[parent][f.uri] = {"uri": f.uri, "name": parts[-1], "mimeType": f.mime_type}
    skill.directories = {uri: list(children.values()) for uri, children in directories.items()}


def serve_skills(server: Server, folder: str | os.PathLike[str]) -> None:
    """Serve every skill of `folder` from `server` (see the module docstring); ValueError with
    a one-line reason for a folder that breaks a rule."""
    skills = {skill.uri: skill for skill in scan_skills(folder)}
    for skill in skills.values():
        for f in skill.files:
            server.add_resource(_definition(skill, f), _reader(f))
    extensions = server.extra_capabilities.setdefault("extensions", {})
    extensions[EXTENSION_ID] = {"directoryRead": True}
    directories = {uri: children for skill in skills.values() for uri, children in skill.directories.items()}

    async def list_skills(params: JSONObject, ctx: RequestContext) -> JSONObject:
        return _cacheable({"skills": [skill.entry() for skill in skills.values()]}, ctx)

    async def get_skill(params: JSONObject, ctx: RequestContext) -> JSONObject:
        uri = params.get("uri")
        skill = skills.get(uri) if isinstance(uri, str) else None
        if skill is None:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Unknown skill URI: {str(uri)[:200]}", {"uri": uri})
        return _cacheable({"skill": skill.entry()}, ctx)

    async def read_directory(params: JSONObject, ctx: RequestContext) -> JSONObject:
        uri = params.get("uri")
        children = directories.get(uri) if isinstance(uri, str) else None
        if children is None:
            raise RpcError(jsonrpc.INVALID_PARAMS, f"Not a directory: {str(uri)[:200]}", {"uri": uri})
        return {"resources": children}

    server.add_method("skills/list", list_skills)
    server.add_method("skills/get", get_skill)
    server.add_method("resources/directory/read", read_directory)


def _cacheable(result: JSONObject, ctx: RequestContext) -> JSONObject:
    return {**_CACHE_FIELDS, **result} if ctx.era == ERA_MODERN else result


def _definition(skill: _Skill, f: _File) -> JSONObject:
    definition: JSONObject = {"uri": f.uri, "name": f.relative, "mimeType": f.mime_type, "size": f.size}
    if f.uri == skill.uri:
        definition["name"] = skill.frontmatter["name"]
        definition["description"] = skill.frontmatter["description"]
    return definition


def _reader(f: _File) -> ResourceHandler:
    async def read(uri: str, ctx: RequestContext) -> JSONObject:
        data = _read(f.path, f.size)
        if len(data) != f.size or digest_of(data) != f.digest:
            raise RpcError(jsonrpc.INTERNAL_ERROR, f"the skill file {f.uri!r:.200} changed since the server started")
        content: JSONObject = {"uri": f.uri, "mimeType": f.mime_type}
        try:
            content["text"] = data.decode("utf-8")
        except UnicodeDecodeError:
            content["blob"] = base64.b64encode(data).decode("ascii")
        return {"contents": [content]}

    return read
