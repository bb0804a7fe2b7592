"""Conformance client driver: `python examples/conformance/client.py SERVER_URL`.

The official suite (harness 0.1.16 and 0.2.0-alpha.12) runs this once per scenario with
MCP_CONFORMANCE_SCENARIO naming it, MCP_CONFORMANCE_PROTOCOL_VERSION the version to speak (alpha)
and sometimes MCP_CONFORMANCE_CONTEXT (JSON) holding the calls to make. Every tool call goes
through `conformance_client`, a typed client that mcpgen generated from client_tools.yaml; what
the scenarios judge (Mcp-* headers, refusing tools with an invalid x-mcp-header, MRTR retries,
schemas kept verbatim, no $ref fetching) is done by the runtime and the generated code, not here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_client import AsyncClient  # noqa: E402

from mcpgen.runtime import McpError, connect_http  # noqa: E402
from mcpgen.runtime.client.auth import Grant, IdentityProvider, MemoryTokenStore, OAuth  # noqa: E402

Scenario = Callable[[AsyncClient, dict[str, Any]], Awaitable[None]]


async def accept_with_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """Elicitation answered as a user who accepts the form unchanged: every default applied."""
    schema = params.get("requestedSchema") or {}
    properties = schema.get("properties") or {}
    content = {
        name: prop["default"] for name, prop in properties.items() if isinstance(prop, dict) and "default" in prop
    }
    return {"action": "accept", "content": content}


async def list_only(client: AsyncClient, context: dict[str, Any]) -> None:
    await client.session.list_tools()


async def tools_call(client: AsyncClient, context: dict[str, Any]) -> None:
    print((await client.add_numbers(a=5, b=3)).text)


async def sse_retry(client: AsyncClient, context: dict[str, Any]) -> None:
    print((await client.test_reconnection()).text)


async def elicitation_defaults(client: AsyncClient, context: dict[str, Any]) -> None:
    print((await client.test_client_elicitation_defaults()).text)


async def request_state(client: AsyncClient, context: dict[str, Any]) -> None:
    # The runtime answers each input_required round (elicitation callback) and retries.
    print((await client.test_mrtr_echo_state()).text)
    print((await client.test_mrtr_no_state()).text)
    print((await client.test_mrtr_unrelated()).text)
    print((await client.test_mrtr_no_result_type()).text)


async def standard_headers(client: AsyncClient, context: dict[str, Any]) -> None:
    await client.session.list_tools()
    print((await client.test_headers()).text)
    print((await client.my_hyphenated_tool()).text)
    for resource in await client.list_resources():
        await client.read_resource(resource.uri)
    await client.list_prompts()
    await client.get_test_prompt()


async def custom_headers(client: AsyncClient, context: dict[str, Any]) -> None:
    # The harness names the calls (untrusted data): dispatch() validates them against the
    # generated models before anything is sent.
    await client.session.list_tools()
    # A null argument (test_custom_headers_null's verbose) is sent as absent: the schema says
    # boolean, so the typed client's way to give no value is to leave the optional argument out.
    for call in context.get("toolCalls") or []:
        if isinstance(call, dict) and isinstance(call.get("arguments") or {}, dict):
            arguments = {k: v for k, v in (call.get("arguments") or {}).items() if v is not None}
            print((await client.dispatch(str(call.get("name")), arguments)).text)


async def invalid_tool_headers(client: AsyncClient, context: dict[str, Any]) -> None:
    # Every tool of the scenario is attempted; the runtime refuses the invalid_* ones.
    listed = {tool.get("name") for tool in await client.session.list_tools()}
    print(f"listed: {sorted(str(n) for n in listed)}")
    attempts: dict[str, Callable[[], Awaitable[Any]]] = {
        "valid_tool": lambda: client.valid_tool(region="us-west1"),
        "invalid_empty_header": lambda: client.invalid_empty_header(value="x"),
        "invalid_object_header": lambda: client.invalid_object_header(data={}),
        "invalid_array_header": lambda: client.invalid_array_header(items=["x"]),
        "invalid_null_header": lambda: client.invalid_null_header(nil=None),
        "invalid_number_header": lambda: client.invalid_number_header(score=1.5),
        "invalid_duplicate_same_case": lambda: client.invalid_duplicate_same_case(field1="a", field2="b"),
        "invalid_duplicate_diff_case": lambda: client.invalid_duplicate_diff_case(field1="a", field2="b"),
        "invalid_space_in_name": lambda: client.invalid_space_in_name(value="x"),
        "invalid_colon_in_name": lambda: client.invalid_colon_in_name(value="x"),
        "invalid_non_ascii_name": lambda: client.invalid_non_ascii_name(value="x"),
        "invalid_control_char_name": lambda: client.invalid_control_char_name(value="x"),
    }
    for name, call in attempts.items():
        try:
            print(f"{name}: {(await call()).text}")
        except McpError as exc:
            print(f"{name}: refused ({exc})")


async def schema_preservation(client: AsyncClient, context: dict[str, Any]) -> None:
    # The schema judged is the one the server lists live; the runtime keeps it verbatim and the
    # generated echo tool sends it back unchanged.
    for tool in await client.session.list_tools():
        if tool.get("name") == "json_schema_2020_12_tool":
            print((await client.json_schema_echo(schema_=tool["inputSchema"])).text)


async def skills_listed(client: AsyncClient, context: dict[str, Any]) -> None:
    # Listing loads no skill: no file is read ahead of need (sep-2640-client-no-prefetch).
    for skill in await client.list_skills():
        print(f"{skill.uri}: {skill.description} ({len(skill.files or ())} files)")


async def skills_loaded(client: AsyncClient, context: dict[str, Any]) -> None:
    # Loading a skill reads its SKILL.md, verified (size, digest, frontmatter) before it is used;
    # a file that fails verification raises, so the skill's other files are never read.
    for skill in await client.list_skills():
        print((await client.read_skill_file(skill)).text)
        for file in skill.files or ():
            if file.uri != skill.uri:
                print((await client.read_skill_file(skill, file.path)).text)


SCENARIOS: dict[str, Scenario] = {
    "initialize": list_only,
    "tools_call": tools_call,
    "sse-retry": sse_retry,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "request-metadata": list_only,
    "sep-2322-client-request-state": request_state,
    "http-standard-headers": standard_headers,
    "http-custom-headers": custom_headers,
    "http-invalid-tool-headers": invalid_tool_headers,
    "json-schema-ref-no-deref": list_only,
    "json-schema-2020-12-preservation": schema_preservation,
    "sep-2640-client-no-prefetch": skills_listed,
    "sep-2640-client-verify-digest": skills_loaded,
    "sep-2640-client-verify-size": skills_loaded,
    "sep-2640-client-verify-frontmatter": skills_loaded,
}


# The Client ID Metadata Document URL the harness expects a client to present as its client_id.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


class FollowRedirect:
    """The user of an auth/* scenario: the harness's authorization endpoint approves at once and
    redirects; the URL it redirects to (with the code) is what a browser would come back with."""

    async def redirect_uri(self) -> str:
        return "http://127.0.0.1:3000/callback"

    async def authorize(self, authorization_url: str) -> str:
        import httpx

        async with httpx.AsyncClient(follow_redirects=False, timeout=30) as http:
            reply = await http.get(authorization_url)
        return reply.headers.get("location", "")


def oauth_for(scenario: str, context: dict[str, Any]) -> OAuth | None:
    """The auth object a scenario calls for: client credentials where the harness hands out a
    secret or a key without a user, else a login (pre-registered when given a client_id)."""
    if not scenario.startswith("auth/"):
        return None
    text = {k: v for k, v in context.items() if isinstance(v, str)}
    grant: Grant = "client_credentials" if scenario.startswith("auth/client-credentials") else "authorization_code"
    provider = None
    if "valid_jwt" in text:  # workload identity federation: the workload's JWT is the grant
        grant = "jwt_bearer"
    if "idp_token_endpoint" in text:  # enterprise-managed: the ID token becomes an ID-JAG first
        grant = "enterprise"
        provider = IdentityProvider(
            text["idp_token_endpoint"], text.get("idp_client_id", ""), text.get("idp_id_token", "")
        )
    return OAuth(
        grant=grant,
        assertion=text.get("valid_jwt"),
        identity_provider=provider,
        client_id=text.get("client_id"),
        client_secret=text.get("client_secret"),
        private_key=text.get("private_key_pem"),
        signing_algorithm=text.get("signing_algorithm", "RS256"),
        client_metadata_url=CLIENT_METADATA_URL,
        authorizer=FollowRedirect(),
        store=MemoryTokenStore(),
        dpop=None,  # the dpop scenarios' authorization servers offer it; the others' do not
    )


async def call_every_tool(client: AsyncClient, context: dict[str, Any]) -> None:
    """auth/* scenarios: connect (the login happens on the first 401), list, call what is listed
    (a scope-protected tool asks for a step-up)."""
    for tool in await client.session.list_tools():
        name = tool.get("name")
        if isinstance(name, str):
            print(f"{name}: {(await client.session.call_tool(name, {}))}")


async def run(scenario: str, url: str, context: dict[str, Any]) -> None:
    protocol = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") or "auto"
    auth = oauth_for(scenario, context)
    if auth is not None:
        async with connect_http(url, protocol=protocol, auth=auth, timeout=30) as session:
            await call_every_tool(AsyncClient(session), context)
        return
    skills = scenario.startswith("sep-2640-")  # (the Skills extension declared where it is judged)
    async with connect_http(
        url, protocol=protocol, on_elicitation=accept_with_defaults, skills=skills, timeout=30
    ) as session:
        # Unknown scenario: connect and list, which is what most of them check.
        await SCENARIOS.get(scenario, list_only)(AsyncClient(session), context)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    try:
        context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    except ValueError:
        context = {}
    try:
        asyncio.run(run(scenario, sys.argv[-1], context if isinstance(context, dict) else {}))
    except (McpError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
