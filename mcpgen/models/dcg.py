"""datamodel-code-generator in a forked helper process that loads it ahead of time.

Loading datamodel-code-generator (its first generate() imports the parsers and models) takes
about half a second: longer than a small catalog's whole generation. A worker forked when the
command starts (entry.py) or a target starts loads it on the second core, with a one-class
warm-up, while this process reads the source, meta-validates the schemas and names everything;
`run` then hands it the one document. Where fork is not the
platform's way (macOS, Windows), or the worker is gone, the call runs in this process instead:
the output is the same either way.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

# (document, aliases) -> module source; the in-process generator (models._run_dcg).
Generate = Callable[[dict[str, Any], dict[str, str]], str]


_WARM_UP: dict[str, Any] = {"type": "object", "properties": {"Warm": {"type": "object", "properties": {"x": {"type": "string"}}}}}


def _serve(conn: Connection, generate: Generate) -> None:
    """The worker: warm up, then answer one request with ("ok", source) or ("error", message)."""
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
        proc = ctx.Process(target=_serve, args=(child, generate), name="mcpgen-dcg", daemon=True)
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
        if self._conn is not None:
            try:
                self._conn.send(None)
            except (OSError, ValueError):
                pass
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            self._proc.join(timeout=0.2)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join()
            self._proc = None

    @classmethod
    def take(cls, generate: Generate) -> DcgWorker:
        """The worker `prestart` started for this process's first target, else a new one."""
        global _prestarted
        worker, _prestarted = _prestarted, None
        return worker if worker is not None else cls(generate)

    def __enter__(self) -> DcgWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _generate_here(doc: dict[str, Any], aliases: dict[str, str]) -> str:
    from .generate import _run_dcg

    return _run_dcg(doc, aliases)


_prestarted: DcgWorker | None = None


def prestart() -> None:
    """Start the first target's worker now, at the top of the `mcpgen` command (entry.py)."""
    global _prestarted
    if _prestarted is None:
        _prestarted = DcgWorker(_generate_here)
