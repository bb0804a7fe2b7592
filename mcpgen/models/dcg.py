"""The only adapter to datamodel-code-generator (DCG): one call per generation, maybe in a helper.

Loading datamodel-code-generator (its first generate() imports the parsers and models) takes
about half a second: longer than a small catalog's whole generation. A worker forked when the
command starts (entry.py) or a target starts loads it on the second core, with a one-class
warm-up, while this process reads the source, meta-validates the schemas and names everything;
`run` then hands it the one document. Where fork is not the
platform's way (macOS, Windows), or the worker is gone, the call runs in this process instead:
the output is the same either way.

The rest of mcpgen sees three functions: `start()` (idempotent: the command's entry point and
each target call it), `generate(document, aliases)` and `stop()`; `parallel()` says whether a
worker is loading DCG while this process does other work.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from .document import ROOT_CLASS

# (document, aliases) -> module source; `run_in_process` below, or a stand-in in tests.
Generate = Callable[[dict[str, Any], dict[str, str]], str]


def run_in_process(doc: dict[str, Any], aliases: dict[str, str]) -> str:
    from datamodel_code_generator import InputFileType, LiteralType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType

    result = generate(
        json.dumps(doc, sort_keys=False),
        input_file_type=InputFileType.JsonSchema,
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_310,
        class_name=ROOT_CLASS,
        aliases=aliases,
        disable_timestamp=True,
        field_constraints=True,
        strict_nullable=True,
        use_union_operator=True,
        use_standard_collections=True,
        enum_field_as_literal=LiteralType.All,
        keep_model_order=True,
        use_schema_description=False,
        # Unknown keys are kept (and sent); the exact check already judged them.
        extra_fields="allow",
        use_field_description=False,
        formatters=[],
        # URLs stay strings: AnyUrl would rewrite what is sent (adds "/") and rejects plain-str defaults.
        type_mappings=["string+uri=string", "string+uri-reference=string", "string+iri=string"],
    )
    if not isinstance(result, str):
        raise RuntimeError("expected one module from datamodel-code-generator")
    return result


_WARM_UP: dict[str, Any] = {
    "type": "object",
    "properties": {"Warm": {"type": "object", "properties": {"x": {"type": "string"}}}},
}


def die_with_parent(parent_pid: int) -> None:
    """Linux: the kernel sends SIGKILL to this worker when mcpgen dies, however it dies."""
    import ctypes
    import os
    import signal

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:  # the parent died before prctl took effect
        os._exit(0)


def _serve(conn: Connection, generate: Generate, parent_end: Connection | None = None, parent_pid: int = 0) -> None:
    """The worker: warm up, then answer one request with ("ok", source) or ("error", message).

    It closes its copy of the parent's pipe end first: when mcpgen dies, the pipe then reads
    EOF here, so the worker ends even where the death signal is not available.
    """
    if parent_end is not None:
        parent_end.close()
    if parent_pid:
        die_with_parent(parent_pid)
    try:
        # `import datamodel_code_generator` alone is lazy: its parser and model modules load on
        # the first generate(), so warm up with a one-class document while the parent works.
        generate(_WARM_UP, {})
    except KeyboardInterrupt:
        return
    except Exception:
        pass  # the real request will say what is wrong
    try:
        request = conn.recv()
    except (EOFError, OSError, KeyboardInterrupt):
        return
    if request is None:
        return
    doc, aliases = request
    try:
        reply: tuple[str, str] = ("ok", generate(doc, aliases))
    except KeyboardInterrupt:
        return  # Ctrl-C reaches the whole process group; the parent reports it
    except Exception as exc:  # DCG raises many types; the parent reports them as one line
        reply = ("error", str(exc) or type(exc).__name__)
    try:
        conn.send(reply)
    except (OSError, ValueError):
        pass


class DcgWorker:
    """Started at the top of a target; `run` once; `close` always (a context manager)."""

    def __init__(self, generate: Generate) -> None:
        self._generate = generate
        self._conn: Connection | None = None
        self._proc: Any = None
        if sys.platform != "linux" or "fork" not in multiprocessing.get_all_start_methods():
            return
        if threading.active_count() > 1:
            return  # forking a threaded process can copy a held lock into the child: stay here
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        import os

        proc = ctx.Process(target=_serve, args=(child, generate, parent, os.getpid()), name="mcpgen-dcg", daemon=True)
        try:
            proc.start()
        except OSError:
            return  # no process to spare: run in this one
        child.close()
        self._conn, self._proc = parent, proc

    @property
    def parallel(self) -> bool:
        """True while a worker process is there (and this process has time on its hands)."""
        return self._conn is not None

    def run(self, doc: dict[str, Any], aliases: dict[str, str]) -> str:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.send((doc, aliases))
                kind, text = conn.recv()
            except (EOFError, OSError):
                kind, text = "gone", ""
            finally:
                conn.close()
            if kind == "ok":
                return str(text)
            if kind == "error":
                raise RuntimeError(text)
        return self._generate(doc, aliases)  # no worker, or it died: same result, here

    def close(self) -> None:
        unused = self._conn is not None
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            # A worker never given a job (the source failed, or Ctrl-C) may still be importing:
            # it is stopped at once rather than waited for, so failing fast stays fast.
            self._proc.join(timeout=0 if unused else 0.2)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join()
            self._proc = None

    def __enter__(self) -> DcgWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_worker: DcgWorker | None = None
# Workers that answered: closed by stop(), not at once (joining a process that is still exiting
# would stall generation on it).
_spent: list[DcgWorker] = []


def start() -> None:
    """Start a worker for the next `generate` (a no-op when one is already waiting)."""
    global _worker
    if _worker is None:
        _worker = DcgWorker(run_in_process)


def parallel() -> bool:
    """True while a worker loads DCG on another core (this process has time on its hands)."""
    return _worker is not None and _worker.parallel


def generate(document: dict[str, Any], aliases: dict[str, str]) -> str:
    """The models module DCG makes of `document`: in the worker if one waits, else here."""
    global _worker
    worker, _worker = _worker, None
    if worker is None:
        return run_in_process(document, aliases)
    _spent.append(worker)
    return worker.run(document, aliases)


def stop() -> None:
    """Stop every worker this process started (each exit path of a target calls this)."""
    global _worker
    workers, _worker = [*_spent, *([_worker] if _worker else [])], None
    _spent.clear()
    for worker in workers:
        worker.close()
