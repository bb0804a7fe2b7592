"""Skills (the `io.modelcontextprotocol/skills` extension, SEP-2640), the client's side: list a
server's skills, look one up, and read its files verified.

Everything here comes from the server and stays untrusted until checked:

- an entry (skills/list, skills/get) is checked whole before it becomes a `Skill`: its URI names
  a SKILL.md whose folder is the frontmatter's name, every manifest URI lies in that folder, each
  digest is `sha256:<64 hex>` and each size a non-negative integer, and the manifest stays within
  the bounds (MAX_FILES files, MAX_BYTES bytes); a bad entry is a SkillVerificationError naming it;
- nothing is read ahead of need: listing and looking up read no file, and `read_skill_file`
  reads one file, one of the retained manifest's (reads are restricted to it);
- a file's bytes are checked before any of them is returned: not more than the manifest's size
  is decoded (a longer answer is refused before it is decoded), then the exact size and the
  SHA-256 digest, and for SKILL.md its frontmatter, field by field, against the entry's. Any
  mismatch is one SkillVerificationError naming the skill and the file; its content is dropped.

A `"resources": "dynamic"` skill has no manifest: its SKILL.md frontmatter is still verified, and
any file under its folder may be read, each bounded by MAX_BYTES.

`read_skill_directory` lists one folder of a skill (resources/directory/read), only on a server
whose Skills declaration says `directoryRead: true` (else a LookupError, nothing sent). Its answer
is checked whole, like an entry: at most MAX_FILES entries over every page, each a direct child
of the folder (the segment rules of manifest URIs), named by its last segment, listed once, and a
file of a manifest skill one of the manifest's files.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.errors import SkillVerificationError
from ..core.jsonrpc import JSONObject, is_array, is_object
from ..core.skills import (
    DIGEST_PATTERN,
    DIRECTORY_MIME_TYPE,
    EXTENSION_ID,
    MAX_BYTES,
    MAX_FILES,
    NAME_PATTERN,
    SKILL_MD,
    digest_of,
    same_frontmatter,
    split_frontmatter,
)

if TYPE_CHECKING:
    from .session import ClientSession

# A URI longer than this is no file name a host should keep (nor show).
MAX_URI_CHARS = 2048
# Pages of one resources/directory/read answer followed at most (the entries are bounded too).
MAX_DIRECTORY_PAGES = 32
_ENCODED_SEPARATOR = re.compile(r"%(?:2e|2f|5c)", re.I)


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill's manifest: its URI, its path under the skill's folder, and what its
    bytes must be (digest, size)."""

    uri: str
    path: str
    digest: str
    size: int


@dataclass(frozen=True)
class Skill:
    """One skill entry, checked: the SKILL.md URI, its frontmatter (name and description always
    there), and the manifest (`files`; None for a "dynamic" skill, which has none)."""

    uri: str
    name: str
    description: str
    frontmatter: Mapping[str, Any] = field(repr=False)
    files: tuple[SkillFile, ...] | None
    meta: Mapping[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @property
    def root(self) -> str:
        """The skill's folder URI (no trailing slash): its files' URIs start with it and a `/`."""
        return self.uri[: -len(SKILL_MD) - 1]

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.files or ())

    def file(self, path: str) -> SkillFile:
        """The manifest's file at `path` (relative to the skill's folder) or at that URI."""
        for entry in self.files or ():
            if path in (entry.path, entry.uri):
                return entry
        raise LookupError(f"the skill {self.uri!r:.200} has no file {path!r:.200} in its manifest")


@dataclass(frozen=True)
class SkillFileContent:
    """A skill file's bytes, verified against the manifest (and for SKILL.md, the frontmatter)."""

    skill: Skill
    uri: str
    data: bytes = field(repr=False)
    mime_type: str | None = None

    @property
    def text(self) -> str:
        """The bytes as UTF-8 (UnicodeDecodeError for a binary file)."""
        return self.data.decode("utf-8")


@dataclass(frozen=True)
class SkillDirectoryEntry:
    """One entry of a skill folder (resources/directory/read), checked: its URI (a direct child of
    the folder read), its name (the URI's last segment) and MIME type (`inode/directory` for a
    folder, which `read_skill_directory` can read in turn)."""

    uri: str
    name: str
    mime_type: str | None = None

    @property
    def is_directory(self) -> bool:
        return self.mime_type == DIRECTORY_MIME_TYPE


def capability() -> JSONObject:
    """What a client that loads skills declares under capabilities.extensions."""
    return {EXTENSION_ID: {}}


def server_declares(session: ClientSession) -> bool:
    extensions = session.server_capabilities.get("extensions")
    return is_object(extensions) and is_object(extensions.get(EXTENSION_ID))


def _require(session: ClientSession) -> None:
    # Clients issue skills/list and skills/get only after observing the server's declaration.
    if not server_declares(session):
        raise LookupError(f"the server does not declare the {EXTENSION_ID} extension")


async def list_skills(session: ClientSession) -> list[Skill]:
    """Every skill of skills/list (all pages), each entry checked; no file is read."""
    _require(session)
    return [parse_entry(raw) for raw in await session.list_all("skills/list", "skills")]


async def get_skill(session: ClientSession, name_or_uri: str) -> Skill:
    """The skill at a SKILL.md URI (skills/get), or the one listed skill of that name. A name
    two skills share is a LookupError naming their URIs: names are labels, URIs identities."""
    _require(session)
    if "://" not in name_or_uri:
        found = [skill for skill in await list_skills(session) if skill.name == name_or_uri]
        if len(found) != 1:
            uris = ", ".join(repr(skill.uri) for skill in found) or "none"
            raise LookupError(f"{len(found)} skills are named {name_or_uri!r:.80} (URIs: {uris:.400})")
        return found[0]
    result = await session.request("skills/get", {"uri": name_or_uri})
    raw = result.get("skill") if is_object(result) else None
    skill = parse_entry(raw)
    if skill.uri != name_or_uri:
        raise SkillVerificationError(name_or_uri, None, f"skills/get answered with another skill, {skill.uri!r:.200}")
    return skill


async def read_skill_file(session: ClientSession, skill: Skill, path: str = SKILL_MD) -> SkillFileContent:
    """One file of `skill` (a manifest path or URI; SKILL.md by default) read with resources/read
    and verified before any of it is returned (see the module docstring)."""
    if skill.files is None:
        uri, expected = _dynamic_uri(skill, path), None
    else:
        expected = skill.file(path)
        uri = expected.uri
    result = await session.read_resource(uri)
    data, mime = _content_of(result, uri, skill, expected.size if expected else MAX_BYTES)
    if expected is not None:
        if len(data) != expected.size:
            raise SkillVerificationError(skill.uri, uri, f"is {len(data)} bytes, the manifest says {expected.size}")
        if digest_of(data) != expected.digest:
            raise SkillVerificationError(skill.uri, uri, "does not match its manifest digest")
    if uri == skill.uri:
        _verify_frontmatter(skill, data)
    return SkillFileContent(skill, uri, data, mime)


async def read_skill_directory(session: ClientSession, skill: Skill, path: str = "") -> list[SkillDirectoryEntry]:
    """The entries of one folder of `skill` ("" for its own folder; else a path under it or the
    folder's URI), checked (see the module docstring) before any is returned."""
    _require(session)
    extensions = session.server_capabilities.get("extensions")
    settings = extensions.get(EXTENSION_ID) if is_object(extensions) else None
    if not is_object(settings) or settings.get("directoryRead") is not True:
        raise LookupError(f"the server does not declare directoryRead in its {EXTENSION_ID} extension")
    given = path.rstrip("/")
    folder = given if given == skill.root or given.startswith(skill.root + "/") else f"{skill.root}/{given}"
    if given == "":
        folder = skill.root
    if folder != skill.root and not _within(skill.root, folder):
        raise LookupError(f"{path!r:.200} is no folder of the skill {skill.uri!r:.200}")
    raw: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_DIRECTORY_PAGES):
        params: JSONObject = {"uri": folder} if cursor is None else {"uri": folder, "cursor": cursor}
        result = await session.request("resources/directory/read", params)
        page = result.get("resources") if is_object(result) else None
        if not is_array(page):
            raise SkillVerificationError(skill.uri, folder, "was answered with no resources list")
        raw.extend(page)
        if len(raw) > MAX_FILES:
            raise SkillVerificationError(skill.uri, folder, f"has over {MAX_FILES} entries")
        next_cursor: object = result.get("nextCursor")
        if next_cursor is None:
            return _directory_entries(skill, folder, raw)
        if not isinstance(next_cursor, str):
            raise SkillVerificationError(skill.uri, folder, "was answered with a nextCursor that is not a string")
        cursor = next_cursor
    raise SkillVerificationError(skill.uri, folder, f"still had a nextCursor after {MAX_DIRECTORY_PAGES} pages")


def _directory_entries(skill: Skill, folder: str, raw: list[Any]) -> list[SkillDirectoryEntry]:
    manifest = {f.uri for f in skill.files} if skill.files is not None else None
    entries: list[SkillDirectoryEntry] = []
    seen: set[str] = set()
    for item in raw:
        uri = item.get("uri") if is_object(item) else None
        if (
            not isinstance(uri, str)
            or len(uri) > MAX_URI_CHARS
            or not _within(folder, uri)
            or "/" in uri[len(folder) + 1 :]
        ):
            raise SkillVerificationError(skill.uri, str(uri)[:200], f"is no direct entry of the folder {folder!r:.200}")
        name, mime = item.get("name"), item.get("mimeType")
        if not isinstance(name, str) or name != uri[len(folder) + 1 :]:
            raise SkillVerificationError(skill.uri, uri, "is listed under another name than its own")
        if mime is not None and (not isinstance(mime, str) or len(mime) > 200 or not mime.isprintable()):
            raise SkillVerificationError(skill.uri, uri, "is listed with a MIME type that is not a short string")
        if uri in seen:
            raise SkillVerificationError(skill.uri, uri, "is listed twice in its folder")
        seen.add(uri)
        if manifest is not None and mime != DIRECTORY_MIME_TYPE and uri not in manifest:
            raise SkillVerificationError(skill.uri, uri, "is listed in its folder but not in the skill's manifest")
        entries.append(SkillDirectoryEntry(uri, name, mime))
    return entries


def _dynamic_uri(skill: Skill, path: str) -> str:
    uri = path if path.startswith(skill.root + "/") or path == skill.uri else f"{skill.root}/{path}"
    if not _within(skill.root, uri):
        raise LookupError(f"{path!r:.200} is no file of the skill {skill.uri!r:.200}")
    return uri


def _content_of(result: Any, uri: str, skill: Skill, bound: int) -> tuple[bytes, str | None]:
    """The one content of `uri` in a resources/read result, decoded, never past `bound` bytes."""
    contents = result.get("contents") if is_object(result) else None
    mine = [c for c in contents if is_object(c) and c.get("uri") == uri] if is_array(contents) else []
    if len(mine) != 1:
        raise SkillVerificationError(skill.uri, uri, f"came back as {len(mine)} contents of its URI, not one")
    content = mine[0]
    mime = content.get("mimeType") if isinstance(content.get("mimeType"), str) else None
    text, blob = content.get("text"), content.get("blob")
    if isinstance(text, str):
        if len(text) > bound:  # (a character is at least one byte: longer text is too many bytes)
            raise SkillVerificationError(skill.uri, uri, f"is over {bound} bytes, the manifest's size")
        data = text.encode("utf-8", "surrogatepass")
    elif isinstance(blob, str):
        if len(blob) > (bound + 2) // 3 * 4:  # (base64 is 4 characters per 3 bytes)
            raise SkillVerificationError(skill.uri, uri, f"is over {bound} bytes, the manifest's size")
        try:
            data = base64.b64decode(blob, validate=True)
        except (binascii.Error, ValueError):
            raise SkillVerificationError(skill.uri, uri, "came back as invalid base64") from None
    else:
        raise SkillVerificationError(skill.uri, uri, "came back with neither text nor blob")
    if len(data) > bound:
        raise SkillVerificationError(skill.uri, uri, f"is over {bound} bytes, the manifest's size")
    return data, mime


def _verify_frontmatter(skill: Skill, data: bytes) -> None:
    try:
        frontmatter, _ = split_frontmatter(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SkillVerificationError(skill.uri, skill.uri, f"has no readable frontmatter: {exc}") from None
    differ = sorted(
        k
        for k in {*frontmatter, *skill.frontmatter}
        if not same_frontmatter(frontmatter.get(k), skill.frontmatter.get(k))
    )
    if differ:
        raise SkillVerificationError(
            skill.uri, skill.uri, f"has frontmatter that differs from its entry's in {differ!r:.200}"
        )


# -- entries ----------------------------------------------------------------------------


def parse_entry(raw: Any) -> Skill:
    """A skills/list or skills/get entry as a Skill, or a SkillVerificationError saying why not."""
    if not is_object(raw):
        raise SkillVerificationError("?", None, "the skill entry is not an object")
    uri = raw.get("uri")
    if not isinstance(uri, str) or not uri.isprintable() or len(uri) > MAX_URI_CHARS or "://" not in uri:
        raise SkillVerificationError(repr(uri)[:200], None, "the skill entry has no usable uri")
    frontmatter = raw.get("frontmatter")
    if not is_object(frontmatter):
        raise SkillVerificationError(uri, None, "the skill entry has no frontmatter object")
    name, description = frontmatter.get("name"), frontmatter.get("description")
    if not isinstance(name, str) or not isinstance(description, str) or not name or not description:
        raise SkillVerificationError(uri, None, "the skill's frontmatter lacks a name or a description")
    segments = uri.split("://", 1)[1].split("/")
    if len(segments) < 2 or segments[-1] != SKILL_MD or segments[-2] != name:
        shown = name if NAME_PATTERN.fullmatch(name) else repr(name)[:80]  # (a hostile name: one escaped line)
        raise SkillVerificationError(uri, None, f"the skill's URI does not end in /{shown}/{SKILL_MD}")
    meta = raw.get("_meta")
    files = _manifest(uri, raw.get("resources"))
    return Skill(uri, name, description, dict(frontmatter), files, dict(meta) if is_object(meta) else {})


def _manifest(uri: str, resources: Any) -> tuple[SkillFile, ...] | None:
    if resources == "dynamic":
        return None
    if not is_array(resources):
        raise SkillVerificationError(uri, None, 'the skill\'s resources are neither a list nor "dynamic"')
    if len(resources) > MAX_FILES:
        raise SkillVerificationError(uri, None, f"the skill has {len(resources)} files, over the {MAX_FILES} allowed")
    root = uri[: -len(SKILL_MD) - 1]
    files: list[SkillFile] = []
    seen: set[str] = set()
    total = 0
    for item in resources:
        file_uri = item.get("uri") if is_object(item) else None
        if not isinstance(file_uri, str) or len(file_uri) > MAX_URI_CHARS or not _within(root, file_uri):
            raise SkillVerificationError(uri, str(file_uri)[:200], "is not a file within the skill's folder")
        digest, size = item.get("digest"), item.get("size")
        if not isinstance(digest, str) or not DIGEST_PATTERN.fullmatch(digest):
            raise SkillVerificationError(uri, file_uri, "has no sha256:<hex> digest in the manifest")
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise SkillVerificationError(uri, file_uri, "has no non-negative integer size in the manifest")
        if file_uri in seen:
            raise SkillVerificationError(uri, file_uri, "is listed twice in the manifest")
        seen.add(file_uri)
        total += size
        files.append(SkillFile(file_uri, file_uri[len(root) + 1 :], digest, size))
    if uri not in seen:
        raise SkillVerificationError(uri, uri, "is missing from the skill's own manifest")
    if total > MAX_BYTES:
        raise SkillVerificationError(uri, None, f"the skill's files are {total} bytes, over the {MAX_BYTES} allowed")
    return tuple(files)


def _within(root: str, uri: str) -> bool:
    """`uri` names a file under the folder `root`: no `.`/`..`/empty segment, nothing unprintable."""
    if not uri.startswith(root + "/") or not uri.isprintable():
        return False
    segments = uri[len(root) + 1 :].split("/")
    # (an encoded dot, slash or backslash is a traversal a server might decode)
    return all(s not in ("", ".", "..") and not _ENCODED_SEPARATOR.search(s) and "\\" not in s for s in segments)
