"""mcpgen's pytest plugin (a `pytest11` entry point: on whenever mcpgen is installed).

Markers say what to talk to, fixtures give a connected client:

    @pytest.mark.mcpgen_mock("weather.snapshot.json", seed=3, overrides="overrides.yaml")
    @pytest.mark.mcpgen_replay("weather.cassette.jsonl")
    @pytest.mark.mcpgen_server(lambda: build_server(Handlers()))

    def test_forecast(mcpgen_client): ...      # a generated Client, connected in memory
    def test_raw(mcpgen_server): ...           # the runtime Server object itself

`mcpgen_client` needs the generated client class: `client=weather_client.Client` on the marker,
or a `mcpgen_client_class` fixture (a conftest.py line). Paths are relative to the test file.

Loading this module costs one pytest import: everything else is imported by the fixtures that
use it, so a user's test run never pays for (or breaks on) a part of mcpgen it does not use.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

if TYPE_CHECKING:
    from ..runtime.server.server import Server

MARKERS = {
    "mcpgen_mock": "mcpgen_mock(source, *, seed=0, overrides=None, client=None, protocol='auto'): "
    "mcpgen fixtures talk to a mock built from SOURCE",
    "mcpgen_replay": "mcpgen_replay(cassette, *, source=None, client=None, protocol='auto'): "
    "mcpgen fixtures talk to a replay of CASSETTE",
    "mcpgen_server": "mcpgen_server(factory, *, client=None, protocol='auto'): "
    "mcpgen fixtures talk to factory() (a runtime Server, e.g. build_server(Handlers()))",
}
_KINDS = tuple(MARKERS)


def pytest_configure(config: pytest.Config) -> None:
    for text in MARKERS.values():
        config.addinivalue_line("markers", text)


class McpgenUsageError(Exception):
    """A marker or fixture used wrongly: one line that says how to use it."""


def _marker(request: pytest.FixtureRequest) -> pytest.Mark:
    found: list[pytest.Mark] = [m for m in (request.node.get_closest_marker(kind) for kind in _KINDS) if m is not None]
    if not found:
        raise McpgenUsageError(
            f"{request.fixturename} needs a marker saying what to talk to: "
            + ", ".join(f"@pytest.mark.{kind}(...)" for kind in _KINDS)
        )
    if len(found) > 1:
        raise McpgenUsageError(f"choose one of {', '.join(m.name for m in found)} for {request.node.name}")
    return found[0]


def _path(request: pytest.FixtureRequest, given: Any) -> Path:
    path = Path(str(given))
    if path.is_absolute():
        return path
    beside = Path(str(request.node.path)).parent / path
    return beside if beside.exists() else Path(str(request.config.rootpath)) / path


def _fail(message: str) -> NoReturn:
    pytest.fail(f"mcpgen: {message}", pytrace=False)


def _build(request: pytest.FixtureRequest, mark: pytest.Mark) -> Server:
    if mark.name == "mcpgen_server":
        factory: Any = mark.args[0] if mark.args else mark.kwargs.get("factory")
        if not callable(factory):
            _fail("@pytest.mark.mcpgen_server takes a factory: a callable returning the server object")
        made: Server = factory()
        return made
    from ..sources.files import load_file

    if mark.name == "mcpgen_mock":
        if not mark.args:
            _fail("@pytest.mark.mcpgen_mock takes the source file (a snapshot or schema file)")
        catalog, problems = load_file(_path(request, mark.args[0]))
        if catalog is None:
            _fail("; ".join(str(p) for p in problems))
        from .mock import MockOptions, mock_server
        from .overrides import OverridesError, load_overrides

        overrides = None
        if mark.kwargs.get("overrides") is not None:
            try:
                overrides = load_overrides(_path(request, mark.kwargs["overrides"]), catalog)
            except OverridesError as exc:
                _fail(str(exc))
        return mock_server(catalog, MockOptions(seed=int(mark.kwargs.get("seed", 0)), overrides=overrides))
    from .cassette import load_cassette, replay_server

    if not mark.args:
        _fail("@pytest.mark.mcpgen_replay takes the cassette file (from `mcpgen record`)")
    source = None
    if mark.kwargs.get("source") is not None:
        source, problems = load_file(_path(request, mark.kwargs["source"]))
        if source is None:
            _fail("; ".join(str(p) for p in problems))
    cassette, problems = load_cassette(_path(request, mark.args[0]), source)
    if cassette is None:
        _fail("the cassette does not fit its catalog:\n  " + "\n  ".join(str(p) for p in problems))
    return replay_server(cassette)


@pytest.fixture
def mcpgen_server(request: pytest.FixtureRequest) -> Server:
    """The server object the test's marker describes (a mock, a replay, or the factory's)."""
    try:
        return _build(request, _marker(request))
    except McpgenUsageError as exc:
        _fail(str(exc))


@pytest.fixture
def mcpgen_client_class(request: pytest.FixtureRequest) -> Any:
    """The generated client class the marker names (`client=`); override this fixture in a
    conftest.py to name one for every test."""
    try:
        mark = _marker(request)
    except McpgenUsageError as exc:
        _fail(str(exc))
    client = mark.kwargs.get("client")
    if client is None:
        _fail(
            "mcpgen_client needs the generated client class: pass client=your_client.Client to the "
            "marker, or define a mcpgen_client_class fixture"
        )
    return client


@pytest.fixture
def mcpgen_client(request: pytest.FixtureRequest, mcpgen_server: Server, mcpgen_client_class: Any) -> Iterator[Any]:
    """A generated client connected in memory to `mcpgen_server` (a sync Client, or an
    AsyncClient's sync twin when the class given is async: pass `Client`, not `AsyncClient`)."""
    mark = _marker(request)
    protocol = str(mark.kwargs.get("protocol", "auto"))
    connect: Callable[..., Any] | None = getattr(mcpgen_client_class, "connect_memory", None)
    if connect is None or getattr(mcpgen_client_class, "_async_client", None) is None:
        _fail(
            f"{getattr(mcpgen_client_class, '__name__', mcpgen_client_class)!r} is not a generated sync Client "
            "(pass the package's Client, generated by mcpgen with the in-memory transport)"
        )
    with connect(mcpgen_server, protocol=protocol, drift="off") as client:
        yield client


def pytest_assertrepr_compare(op: str, left: Any, right: Any) -> list[str] | None:
    """Two typed results (pydantic models) that differ: name the fields that differ, not just
    the two reprs."""
    if op != "==" or type(left) is not type(right):
        return None
    dump = getattr(left, "model_dump", None)
    if dump is None or getattr(right, "model_dump", None) is None:
        return None
    try:
        mine, theirs = left.model_dump(mode="json"), right.model_dump(mode="json")
    except Exception:
        return None
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return None
    lines = [f"{type(left).__name__} results differ:"]
    for key in sorted(set(mine) | set(theirs)):
        if mine.get(key, "<missing>") != theirs.get(key, "<missing>"):
            lines.append(f"  {key}: {mine.get(key, '<missing>')!r} != {theirs.get(key, '<missing>')!r}")
    return lines if len(lines) > 1 else None
