"""The only adapter to datamodel-code-generator (DCG): one call per document, maybe in a helper.

Loading datamodel-code-generator (its first generate() imports the parsers and models) takes
about half a second: longer than a small catalog's whole generation. A worker forked when the
command starts (entry.py) or a target starts loads it on the second core, with a one-class
warm-up, while this process reads the source, meta-validates the schemas and names everything;
`run` then hands it the one document. Where fork is not the
platform's way (macOS, Windows), or the worker is gone, the call runs in this process instead:
the output is the same either way.

A big catalog's document comes in parts (models/__init__.py): beside the first worker, `start()`
forks one cold worker per further core (at most 4 in all; forked while this process is still
small), `prepare()` has them load DCG while the plan is made, and `generate_parts` hands each
worker the next part as it hands one back. A worker that dies holding a part is `WorkerLost`
(one line for the user), not a silent retry: what killed it (memory, a signal) would likely
kill the retry too.

The rest of mcpgen sees `start()` (idempotent: the command's entry point and each target call
it), `prepare()`, `generate(document, aliases)`, `generate_parts(parts)` and `stop()`;
`parallel()` says whether a worker is loading DCG while this process does other work.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, cast

from .document import ROOT_CLASS

# (document, aliases) -> module source; `run_in_process` below, or a stand-in in tests.
Generate = Callable[[dict[str, Any], dict[str, str]], str]


def run_in_process(doc: dict[str, Any], aliases: dict[str, str]) -> str:
    from datamodel_code_generator import InputFileType, LiteralType, PythonVersion, generate
    from datamodel_code_generator.enums import DataModelType, NamingStrategy

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
        # A nested model is named by its path from its tool's model (`ReadMediaFileResultContentItem`),
        # never `ContentItem1` or a bare `Resource` that one tool happens to have first.
        naming_strategy=NamingStrategy.FullPath,
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


class WorkerLost(RuntimeError):
    """A worker process ended while it held a part of the document."""


_WARM = "warm"  # a message: load datamodel-code-generator now (a worker started cold)


def _warm_up(generate: Generate) -> bool:
    # `import datamodel_code_generator` alone is lazy: its parser and model modules load on
    # the first generate(), so warm up with a one-class document while the parent works.
    try:
        generate(_WARM_UP, {})
    except Exception:
        pass  # the real request will say what is wrong
    return True


def _serve(
    conn: Connection,
    generate: Generate,
    parent_ends: list[Connection],
    parent_pid: int = 0,
    warm: bool = True,
) -> None:
    """The worker: maybe warm up, then answer each request with ("ok", source) or ("error",
    message) until told to stop (None) or the parent's end closes.

    It closes its copies of the parent's pipe ends first (its own and earlier workers'): when
    mcpgen dies, the pipe then reads EOF here, so the worker ends even where the death signal
    is not available.
    """
    for end in parent_ends:
        end.close()
    if parent_pid:
        die_with_parent(parent_pid)
    try:
        warmed = warm and _warm_up(generate)
        while True:
            try:
                request = conn.recv()
            except (EOFError, OSError):
                return
            if request is None:
                return
            if request == _WARM:
                warmed = warmed or _warm_up(generate)
                continue
            doc, aliases = request
            try:
                reply: tuple[str, str] = ("ok", generate(doc, aliases))
            except Exception as exc:  # DCG raises many types; the parent reports them as one line
                reply = ("error", str(exc) or type(exc).__name__)
            try:
                conn.send(reply)
            except (OSError, ValueError):
                return
    except KeyboardInterrupt:
        return  # Ctrl-C reaches the whole process group; the parent reports it


# Every parent end of a worker pipe this process holds: a worker forked later closes them.
_parent_ends: list[Connection] = []


class DcgWorker:
    """A forked process running datamodel-code-generator, one request at a time: `run` for one
    document (in this process if the worker is gone), or `send` / `receive` for many parts;
    `close` always (a context manager). `warm=False` starts it without loading DCG (`warm()`
    loads it when it will be needed)."""

    def __init__(self, generate: Generate, *, warm: bool = True) -> None:
        self._generate = generate
        self._conn: Connection | None = None
        self._proc: Any = None
        self._busy = False
        if sys.platform != "linux" or "fork" not in multiprocessing.get_all_start_methods():
            return
        if threading.active_count() > 1:
            return  # forking a threaded process can copy a held lock into the child: stay here
        ctx = multiprocessing.get_context("fork")
        parent, child = ctx.Pipe()
        import os

        args = (child, generate, [*_parent_ends, parent], os.getpid(), warm)
        proc = ctx.Process(target=_serve, args=args, name="mcpgen-dcg", daemon=True)
        try:
            proc.start()
        except OSError:
            return  # no process to spare: run in this one
        child.close()
        _parent_ends.append(parent)
        self._conn, self._proc = parent, proc

    @property
    def parallel(self) -> bool:
        """True while a worker process is there (and this process has time on its hands)."""
        return self._conn is not None

    @property
    def connection(self) -> Connection | None:
        return self._conn

    def warm(self) -> None:
        """Have a worker started cold load DCG now, while this process does other work."""
        if self._conn is not None:
            try:
                self._conn.send(_WARM)
            except (OSError, ValueError):
                self._drop()

    def send(self, doc: dict[str, Any], aliases: dict[str, str]) -> bool:
        """Hand the worker one document; False when it is gone (nothing was handed over)."""
        if self._conn is None:
            return False
        try:
            self._conn.send((doc, aliases))
        except (OSError, ValueError):
            self._drop()
            return False
        self._busy = True
        return True

    def receive(self) -> str:
        """The module of the document `send` handed over; RuntimeError with DCG's complaint,
        WorkerLost when the worker ended first."""
        assert self._conn is not None and self._busy
        try:
            kind, text = self._conn.recv()
        except (EOFError, OSError):
            self._drop()
            raise WorkerLost(f"its worker process ended ({self._ended()})") from None
        self._busy = False
        if kind == "ok":
            return str(text)
        raise RuntimeError(text)

    def run(self, doc: dict[str, Any], aliases: dict[str, str]) -> str:
        """One document's module: in the worker if it is there, else (or if it died) here."""
        if self.send(doc, aliases):
            try:
                return self.receive()
            except WorkerLost:
                pass
            finally:
                self.release()
        return self._generate(doc, aliases)  # no worker, or it died: same result, here

    def release(self) -> None:
        """Tell an idle worker to end, without waiting for it (`close` reaps it)."""
        if self._conn is not None:
            if not self._busy:
                try:
                    self._conn.send(None)
                except (OSError, ValueError):
                    pass
            self._drop()

    def _drop(self) -> None:
        if self._conn is not None:
            if self._conn in _parent_ends:
                _parent_ends.remove(self._conn)
            self._conn.close()
            self._conn = None

    def _ended(self) -> str:
        if self._proc is None:
            return "no process"
        self._proc.join(timeout=1)
        code = self._proc.exitcode
        return "still running" if code is None else f"killed by signal {-code}" if code < 0 else f"exit code {code}"

    def close(self) -> None:
        """Stop the worker: at once when it is busy or never got a job (it may still be importing),
        after a short wait for one told to end."""
        told = self._conn is None
        busy = self._busy
        self.release()
        if self._proc is not None:
            self._proc.join(timeout=0.2 if told and not busy else 0)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join()
            self._proc = None

    def __enter__(self) -> DcgWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def worker_count() -> int:
    """How many workers a big catalog's parts are spread over: one per core, at most 4 (each
    holds its own DCG, ~70 MB; more cores than that add little on a few hundred tools)."""
    import os

    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1, min(cores, 4))


_worker: DcgWorker | None = None
# Workers started cold beside `_worker`, used only for a document in parts (a big catalog).
_extras: list[DcgWorker] = []
# Workers that answered: closed by stop(), not at once (joining a process that is still exiting
# would stall generation on it).
_spent: list[DcgWorker] = []


def start() -> None:
    """Start a worker for the next `generate` (a no-op when one is already waiting), and, on a
    machine with more cores, cold ones that a big catalog's parts wake (`prepare`)."""
    global _worker
    if _worker is None:
        _worker = DcgWorker(run_in_process)
        if _worker.parallel:
            _extras.extend(DcgWorker(run_in_process, warm=False) for _ in range(worker_count() - 1))


def parallel() -> bool:
    """True while a worker loads DCG on another core (this process has time on its hands)."""
    return _worker is not None and _worker.parallel


def prepare() -> None:
    """The next document comes in parts: the cold workers load DCG now, while this process plans."""
    for worker in _extras:
        worker.warm()


def generate(document: dict[str, Any], aliases: dict[str, str]) -> str:
    """The models module DCG makes of `document`: in the worker if one waits, else here."""
    global _worker
    worker, _worker = _worker, None
    for extra in _extras:
        extra.release()  # one document needs one worker: the cold ones may end now
    _spent.extend(_extras)
    _extras.clear()
    if worker is None:
        return run_in_process(document, aliases)
    _spent.append(worker)
    return worker.run(document, aliases)


def generate_parts(parts: Sequence[tuple[dict[str, Any], dict[str, str]]]) -> Iterator[tuple[int, str]]:
    """(index, module) of each part as it is done, spread over the waiting workers (each takes
    the next part when it hands one back), else made here one after another: the modules are
    the same either way. Raises RuntimeError with DCG's complaint, or WorkerLost."""
    global _worker
    workers = [w for w in [_worker, *_extras] if w is not None and w.parallel]
    _spent.extend(w for w in [_worker, *_extras] if w is not None)
    _worker = None
    _extras.clear()
    todo = iter(range(len(parts)))
    here: list[int] = []  # parts a worker was gone before taking: made in this process
    busy: dict[Connection, tuple[DcgWorker, int]] = {}

    def hand_out(worker: DcgWorker) -> None:
        index = next(todo, None)
        if index is None:
            worker.release()  # nothing left: the worker may end now
        elif worker.send(*parts[index]):
            busy[cast(Connection, worker.connection)] = (worker, index)
        else:
            here.append(index)

    for worker in workers:
        hand_out(worker)
    while busy:
        for ready in wait(list(busy)):
            worker, index = busy.pop(cast(Connection, ready))
            source = worker.receive()
            hand_out(worker)
            yield index, source
    for index in [*here, *todo]:
        yield index, run_in_process(*parts[index])


def stop() -> None:
    """Stop every worker this process started (each exit path of a target calls this)."""
    global _worker
    workers, _worker = [*_spent, *_extras, *([_worker] if _worker else [])], None
    _spent.clear()
    _extras.clear()
    for worker in workers:
        worker.close()
