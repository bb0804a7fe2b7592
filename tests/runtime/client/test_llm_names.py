"""The one name rule (llm_names.py): every mapped name is one its API's documented pattern
takes, the mapping is deterministic and collision-free across every API, and a name the API
accepts never moves."""

from __future__ import annotations

import re

import pytest
from generation import AWKWARD

from mcpgen.runtime.client.llm_names import MAX_NAME, assign_names

# The documented patterns, written out again here (not imported): the test checks the module.
DOCUMENTED = {
    "anthropic": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    "openai": re.compile(r"^[a-zA-Z0-9_-]{1,64}$"),
    "gemini": re.compile(r"^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$"),
}
NAMES = [*AWKWARD, "weather.alert", "weather_alert", "weather-alert", "files/read", "a:b", "x" * 64, "9lives"]


@pytest.mark.parametrize("rule", sorted(DOCUMENTED))
def test_every_mapped_name_is_one_the_api_takes(rule: str) -> None:
    names = assign_names(NAMES)
    mapped = names.by_rule[rule]
    assert sorted(mapped) == sorted(set(NAMES))
    assert all(DOCUMENTED[rule].match(n) for n in mapped.values()), mapped
    assert len(set(mapped.values())) == len(mapped), "two tools share a name"


def test_a_name_every_api_takes_is_kept() -> None:
    names = assign_names(["get_weather", "get-weather", "x" * 64])
    for rule in DOCUMENTED:
        assert names.by_rule[rule] == {"get_weather": "get_weather", "get-weather": "get-weather", "x" * 64: "x" * 64}


def test_characters_become_underscores_and_clashes_take_a_hash() -> None:
    names = assign_names(["weather.alert", "weather_alert", "files/read"])
    anthropic = names.by_rule["anthropic"]
    assert anthropic["weather_alert"] == "weather_alert"  # valid: it keeps its name
    assert anthropic["files/read"] == "files_read"
    assert re.fullmatch(r"weather_alert_[0-9a-f]{8}", anthropic["weather.alert"])


def test_long_names_are_cut_with_a_hash_within_the_limit() -> None:
    long_a, long_b = "t" * 300, "t" * 299 + "u"
    mapped = assign_names([long_a, long_b]).by_rule["openai"]
    assert all(len(n) == MAX_NAME for n in mapped.values())
    assert mapped[long_a] != mapped[long_b]


def test_gemini_names_start_with_a_letter_or_underscore() -> None:
    names = assign_names(["3d", "-x"])
    assert names.by_rule["gemini"] == {"3d": "_3d", "-x": "_-x"}
    assert names.by_rule["anthropic"] == {"3d": "3d", "-x": "-x"}


def test_the_mapping_does_not_depend_on_order() -> None:
    assert assign_names(NAMES) == assign_names(list(reversed(NAMES)))


def test_every_name_means_one_tool_across_apis_and_python_names() -> None:
    # "1.x" becomes "_1_x" for Gemini; "_1.x" becomes "_1_x" for Anthropic: one must yield.
    reserved = {"get_weather_py": "get weather"}
    names = assign_names(["1.x", "_1.x", "get weather", "get_weather_py!"], reserved)
    for rule, mapped in names.by_rule.items():
        for wire, name in mapped.items():
            assert names.to_wire[name] == wire, (rule, wire, name)
    assert names.by_rule["openai"]["get_weather_py!"] != "get_weather_py"  # held by a method name
