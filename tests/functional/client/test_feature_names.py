"""Untrusted prompt and template names become safe, unique Python names; level-1 expansion is safe."""

from __future__ import annotations

import asyncio
import inspect
import re
from pathlib import Path

import pytest
from features_client_support import generated

from mcpgen.sources.files import catalog_from_document

DOC = {
    "tools": [
        {"name": "get_weather", "inputSchema": {"type": "object", "properties": {}}},
        {"name": "complete", "inputSchema": {"type": "object", "properties": {}}},
    ],
    "prompts": [
        {"name": "weather", "arguments": [{"name": "class", "required": True}, {"name": "arguments"}]},
        {"name": 'x"""; import os; os.system("boom") #', "description": '"""\nimport os\n'},
        {"name": "Weather"},  # same snake name as "weather"
        {"name": "resource_updates"},
        {"name": 7},  # not a string: no method
    ],
    "resourceTemplates": [
        {"uriTemplate": "x://{a}/{values}/{a}", "name": "pair"},
        {"uriTemplate": "x://{+path}", "name": "reserved-expansion"},  # level 2: no typed helper
        {"uriTemplate": "x://q{?q}", "name": "query"},  # level 3: none either
    ],
}


def test_untrusted_names(tmp_path: Path) -> None:
    cat, problems = catalog_from_document(DOC, "inline")
    assert cat is not None and not problems
    with generated(cat, tmp_path) as pkg:
        C = pkg.AsyncClient
        members = {n for n in dir(C) if not n.startswith("_")}
        # Tools keep their names; prompts step around them and each other.
        # (naming.allocate: a reserved name gets "_", a taken one "_2"; ties go to the smaller wire name)
        assert {
            "get_weather",
            "complete_",
            "get_weather_",
            "get_weather__2",
            "get_resource_updates",
            "read_pair",
        } <= members
        assert inspect.iscoroutinefunction(C.complete)  # the client's own complete is not shadowed
        injected = [n for n in members if n.startswith("get_x_")]
        assert injected == ["get_x_import_os_os_system_boom"]
        assert not inspect.signature(C.get_weather_).parameters.keys() - {"self"}  # "Weather"
        # "weather": keyword and local-variable names step aside; the wire names are still sent.
        assert list(inspect.signature(C.get_weather__2).parameters) == ["self", "class_", "arguments_"]
        assert list(inspect.signature(C.read_pair).parameters) == ["self", "a", "values_"]
        assert not any(n.startswith("read_reserved") or n.startswith("read_query") for n in members)
        assert pkg.__name__ and not hasattr(pkg, "os")

        sent: list[tuple[str, object]] = []

        class FakeSession:
            def know_tools(self, tools: object) -> None:
                pass

            async def get_prompt(
                self, name: str, arguments: object, *, timeout: float | None = None
            ) -> dict[str, object]:
                sent.append((name, arguments))
                return {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}

            async def read_resource(self, uri: str, *, timeout: float | None = None) -> dict[str, object]:
                sent.append(("read", uri))
                return {"contents": [{"uri": uri, "text": "t"}]}

        c = C(FakeSession())
        assert asyncio.run(c.get_weather__2(class_="c")).text == "hi"
        asyncio.run(c.get_weather__2(class_="c", arguments_="x"))
        asyncio.run(c.read_pair(a="1/2", values_="v"))
        # The optional argument left out is not sent at all; wire names go out; a repeated variable expands twice.
        assert sent == [
            ("weather", {"class": "c"}),
            ("weather", {"class": "c", "arguments": "x"}),
            ("read", "x://1%2F2/v/1%2F2"),
        ]


@pytest.mark.parametrize(
    ("values", "uri"),
    [
        ({"id": "42"}, "t://x/42/data"),
        ({"id": "a/b"}, "t://x/a%2Fb/data"),
        ({"id": "?q=1#f"}, "t://x/%3Fq%3D1%23f/data"),
        ({"id": "é ~._-"}, "t://x/%C3%A9%20~._-/data"),
        ({"id": "%2F"}, "t://x/%252F/data"),
    ],
)
def test_expand_uri_template(values: dict[str, str], uri: str) -> None:
    from mcpgen.runtime.client.features import expand_uri_template as expand

    assert expand("t://x/{id}/data", values) == uri
    for bad in (".", ".."):
        with pytest.raises(ValueError, match=f"^id='{re.escape(bad)}' is not allowed in a URI template$"):
            expand("t://x/{id}/data", {"id": bad})
