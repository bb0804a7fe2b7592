"""Regeneration inside a build: a project's `[tool.mcpgen]` targets run before its wheel is built.

`build.py` holds what any build backend needs (which targets, the live-source rule, running them
through pipeline.py as `mcpgen generate` does); `hatch.py` is hatchling's plugin around it
(`[tool.hatch.build.hooks.mcpgen]`), loaded by hatchling only, through the `hatch` entry point.
"""
