"""Tool results and content blocks: what a typed client call returns and what a server handler
returns (no pydantic: cheap to import). The errors they go with (ToolError, ...) are in errors.py."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Union

from .jsonrpc import is_array, is_object


class Unset:
    """Marks an optional argument the caller left out: it is not sent at all (not `null`)."""

    _instance: Unset | None = None

    def __new__(cls) -> Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = Unset()


@dataclass
class TextContent:
    text: str
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)
    type: str = "text"


@dataclass
class ImageContent:
    data: str  # base64
    mime_type: str
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)
    type: str = "image"


@dataclass
class AudioContent:
    data: str  # base64
    mime_type: str
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)
    type: str = "audio"


@dataclass
class ResourceLink:
    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)
    type: str = "resource_link"


@dataclass
class EmbeddedResource:
    uri: str
    mime_type: str | None = None
    text: str | None = None
    blob: str | None = None  # base64
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)
    type: str = "resource"


@dataclass
class UnknownContent:
    """A content block of a type this client does not know; `raw` has all of it."""

    type: str
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)


ContentBlock = Union[TextContent, ImageContent, AudioContent, ResourceLink, EmbeddedResource, UnknownContent]


def str_or_empty(value: Any) -> str:
    """A peer's field as text: "" when it is not a string."""
    return value if isinstance(value, str) else ""


def str_or_none(value: Any) -> str | None:
    """A peer's optional field as text: None when it is not a string."""
    return value if isinstance(value, str) else None


def parse_block(raw: Any) -> ContentBlock:
    """Lenient: a malformed block becomes UnknownContent rather than an exception."""
    if not is_object(raw):
        return UnknownContent(type="invalid", raw={"value": raw})
    kind = raw.get("type")
    if kind == "text":
        return TextContent(text=str_or_empty(raw.get("text")), raw=raw)
    if kind == "image":
        return ImageContent(data=str_or_empty(raw.get("data")), mime_type=str_or_empty(raw.get("mimeType")), raw=raw)
    if kind == "audio":
        return AudioContent(data=str_or_empty(raw.get("data")), mime_type=str_or_empty(raw.get("mimeType")), raw=raw)
    if kind == "resource_link":
        return ResourceLink(
            uri=str_or_empty(raw.get("uri")),
            name=str_or_empty(raw.get("name")),
            title=str_or_none(raw.get("title")),
            description=str_or_none(raw.get("description")),
            mime_type=str_or_none(raw.get("mimeType")),
            raw=raw,
        )
    if kind == "resource":
        res = raw.get("resource")
        res = res if is_object(res) else {}
        return EmbeddedResource(
            uri=str_or_empty(res.get("uri")),
            mime_type=str_or_none(res.get("mimeType")),
            text=str_or_none(res.get("text")),
            blob=str_or_none(res.get("blob")),
            raw=raw,
        )
    return UnknownContent(type=str(kind), raw=raw)


def block_to_wire(block: ContentBlock | dict[str, Any]) -> dict[str, Any]:
    """A content block as sent: its raw dict when it came from one, else built from its fields."""
    if is_object(block):
        return block  # a handler written for the older, dict-based ToolResult
    if block.raw:
        return block.raw
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, (ImageContent, AudioContent)):
        return {"type": block.type, "data": block.data, "mimeType": block.mime_type}
    if isinstance(block, ResourceLink):
        link: dict[str, Any] = {"type": "resource_link", "uri": block.uri, "name": block.name}
        optional = {"title": block.title, "description": block.description, "mimeType": block.mime_type}
        return {**link, **{k: v for k, v in optional.items() if v is not None}}
    if isinstance(block, EmbeddedResource):
        fields = {"mimeType": block.mime_type, "text": block.text, "blob": block.blob}
        resource = {"uri": block.uri, **{k: v for k, v in fields.items() if v is not None}}
        return {"type": "resource", "resource": resource}
    return {"type": block.type}


def _text_of(blocks: list[ContentBlock]) -> str:
    return "\n".join(b.text for b in blocks if isinstance(b, TextContent))


@dataclass
class ToolResult:
    """A tool result: typed content blocks, structured content, the error flag, and the raw result.

    A client gets one for a tool without an outputSchema; a server handler may return one
    (`ToolResult.of([...blocks as dicts...], is_error=True)`) to say exactly what is sent.
    """

    content: list[ContentBlock] = field(default_factory=list[ContentBlock])
    structured_content: Any = None
    is_error: bool = False
    raw: dict[str, Any] = field(default_factory=dict[str, Any], repr=False)

    @property
    def text(self) -> str:
        """All text blocks joined by newlines."""
        return _text_of(self.content)

    @classmethod
    def from_raw(cls, raw: dict[str, Any]) -> ToolResult:
        content = raw.get("content")
        blocks = [parse_block(b) for b in content] if is_array(content) else []
        return cls(blocks, raw.get("structuredContent"), bool(raw.get("isError")), raw)

    @classmethod
    def of(
        cls, content: Sequence[dict[str, Any]], structured_content: Any = None, *, is_error: bool = False
    ) -> ToolResult:
        """A result from content blocks as they go on the wire (`{"type": "text", ...}` dicts)."""
        raw: dict[str, Any] = {"content": list(content), "isError": is_error}
        if structured_content is not None:
            raw["structuredContent"] = structured_content
        return cls.from_raw(raw)

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """An error result a model can read (what `dispatch` returns for bad calls)."""
        block = {"type": "text", "text": message}
        return cls([TextContent(message, block)], None, True, {"content": [block], "isError": True})

    def to_wire(self) -> dict[str, Any]:
        """The CallToolResult to send: the fields as they are now, plus any other keys of `raw`."""
        wire: dict[str, Any] = {"content": [block_to_wire(b) for b in self.content], "isError": self.is_error}
        if self.structured_content is not None:
            wire["structuredContent"] = self.structured_content
        extra = {k: v for k, v in self.raw.items() if k not in ("content", "isError", "structuredContent")}
        return {**wire, **extra}


def structured_of(raw: dict[str, Any]) -> Any:
    """structuredContent, or (for older servers) the JSON in the single text block."""
    if raw.get("structuredContent") is not None:
        return raw["structuredContent"]
    content = raw.get("content")
    if is_array(content) and len(content) == 1 and is_object(content[0]):
        text = content[0].get("text")
        if isinstance(text, str):
            try:
                return json.loads(text)
            except ValueError:
                return None
    return None
