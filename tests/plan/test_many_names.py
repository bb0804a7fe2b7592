"""Names for a package of many servers: namespaces, LLM-safe prefixed tool names, collisions."""

from __future__ import annotations

import re

from mcpgen.plan.many import NAME_MAX, build_many_plan, prefixed_names

SAFE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_prefixed_names_are_server_then_tool_with_unsafe_characters_replaced() -> None:
    names = prefixed_names([("github", "create_issue"), ("my.server", "get weather/now")])
    assert names[("github", "create_issue")] == "github__create_issue"
    assert names[("my.server", "get weather/now")] == "my_server__get_weather_now"


def test_too_long_or_colliding_names_get_a_stable_hash_suffix_and_stay_within_64() -> None:
    long_tool = "t" * 80
    pairs = [("linear", "list.issues"), ("linear", "list_issues"), ("linear", long_tool), ("a", "b")]
    names = prefixed_names(pairs)
    assert all(SAFE.match(n) for n in names.values()), names
    assert len(set(names.values())) == len(pairs)
    # The name the APIs accept as it is stays its tool's; the spelling that only meets it after
    # cleaning is hashed (the one rule of llm_names.py, as a single client's tools are named).
    assert names[("linear", "list_issues")] == "linear__list_issues"
    assert names[("linear", "list.issues")].startswith("linear__list_issues_")
    assert len(names[("linear", long_tool)]) == NAME_MAX
    assert names[("a", "b")] == "a__b"
    # The same pair gets the same name whatever else is listed, and in any order.
    assert prefixed_names(list(reversed(pairs))) == names
    assert prefixed_names([("linear", long_tool)])[("linear", long_tool)] == names[("linear", long_tool)]


def test_namespaces_avoid_keywords_and_members_and_collisions_resolve_by_server_name() -> None:
    plan = build_many_plan({"my_server": ["x"], "my-server": ["x"], "class": [], "connect": ["y"]})
    spaces = {s.server: s.namespace for s in plan.servers}
    # "my-server" < "my_server": it keeps the plain name, whatever order the config lists them.
    assert spaces == {"class": "class_", "connect": "connect_", "my-server": "my_server", "my_server": "my_server_2"}
    again = build_many_plan({"connect": ["y"], "my_server": ["x"], "class": [], "my-server": ["x"]})
    assert again == plan
    assert [s.server for s in plan.servers] == sorted(spaces)
    report = "\n".join(plan.collisions)
    assert "server 'my_server' is `my_server_2`" in report
    assert "tool 'x' is offered by 2 servers: kept apart as `my_server.x`, `my_server_2.x`" in report
    assert {t.prefixed for t in plan.tools} == {"my-server__x", "my_server__x", "connect__y"}


def test_no_collision_no_report() -> None:
    plan = build_many_plan({"time": ["get_current_time"], "everything": ["echo"]})
    assert plan.collisions == ()
    assert [(t.prefixed, t.namespace, t.wire) for t in plan.tools] == [
        ("everything__echo", "everything", "echo"),
        ("time__get_current_time", "time", "get_current_time"),
    ]
