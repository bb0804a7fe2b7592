"""hatchling's build hook `mcpgen`: `[tool.hatch.build.hooks.mcpgen]` in a project's pyproject.toml
runs its `[tool.mcpgen]` targets before the wheel is built (build.py).

Registered by the mcpgen distribution through the `hatch` entry point group, so a project needs
mcpgen among its build requirements, nothing else. The sdist is left as the source tree has it
(its snapshot and pyproject): the wheel built from it generates the code again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.plugin import hookimpl

from .build import BuildRefused, generate_for_build, hook_options


class McpgenBuildHook(BuildHookInterface):  # type: ignore[type-arg]  # (generic over its builder config)
    PLUGIN_NAME = "mcpgen"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        try:
            folders = generate_for_build(Path(self.root), hook_options(self.config))
        except BuildRefused as exc:
            # One line, and the build fails (hatchling shows the message, pip exits non-zero).
            raise SystemExit(f"mcpgen: error: {exc}") from None
        for folder in folders:
            # Generated code is often git-ignored: artifacts are included whatever the VCS says.
            build_data["artifacts"].append(f"/{folder}/")
        self.app.display_info(f"mcpgen: generated {', '.join(folders)}")


@hookimpl
def hatch_register_build_hook() -> type[BuildHookInterface]:  # type: ignore[type-arg]
    return McpgenBuildHook
