"""Loads one mutant in place of its module, in every Python process that starts with this folder
on PYTHONPATH (pytest and each subprocess it spawns): `MCPGEN_MUTANT=package.module:INDEX`.

The mutant is compiled from the edited AST at import time, never cached, and gets the module's
own file name, so import-time code is mutated too and nothing on disk changes. The process
writes its pid to `MCPGEN_MUTANT_MARK` (a folder) once the mutant is loaded: the runner counts a
mutant that no process loaded as not run, never as survived.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
from pathlib import Path
from types import CodeType, ModuleType

_SPEC = os.environ.get("MCPGEN_MUTANT", "")


class _MutantLoader(importlib.machinery.SourceFileLoader):
    def __init__(self, fullname: str, path: str, index: int) -> None:
        super().__init__(fullname, path)
        self.index = index

    def get_code(self, fullname: str) -> CodeType:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        try:
            from mutants import mutated
        finally:
            sys.path.pop(0)
        source = Path(self.path).read_text(encoding="utf-8")
        code = compile(mutated(source, self.index), self.path, "exec", dont_inherit=True)
        mark = os.environ.get("MCPGEN_MUTANT_MARK")
        if mark:
            Path(mark, str(os.getpid())).touch()
        return code


class _MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, index: int) -> None:
        self.name, self.index = name, index

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)  # type: ignore[arg-type]
        if spec is None or spec.origin is None:
            return None
        spec.loader = _MutantLoader(fullname, spec.origin, self.index)
        return spec


if ":" in _SPEC:
    _name, _, _index = _SPEC.rpartition(":")
    sys.meta_path.insert(0, _MutantFinder(_name, int(_index)))
