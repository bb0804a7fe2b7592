"""The verdicts the HTTP app remembers per header value (Accept, Content-Type, Host and Origin)
are the ones it would reach afresh, and the memos stay bounded whatever a client sends (the
untrusted-input rule: no header grows the server's memory)."""

from __future__ import annotations

from mcpgen.runtime.server.http import asgi
from mcpgen.runtime.server.http.app import StreamableHttpApp
from mcpgen.runtime.server.http.security import HttpSecurity
from mcpgen.runtime.server.server import Server


def test_accept_and_content_type_verdicts_match_a_fresh_reading() -> None:
    for accept in ("application/json, text/event-stream", "*/*", "text/html", "application/*;q=0.5", ""):
        for _ in range(2):  # the second answer comes from the memo
            assert asgi.accepts(accept) == asgi._accepts(accept)
    assert asgi.is_json("application/json; charset=utf-8") and asgi.is_json("application/json; charset=utf-8")
    assert not asgi.is_json("text/plain") and not asgi.is_json("text/plain")


def test_memos_stay_bounded_whatever_the_client_sends() -> None:
    for i in range(10 * asgi._MEMO_MAX):
        asgi.accepts(f"application/json, text/x-{i}")
        asgi.is_json(f"application/json; v={i}")
    assert len(asgi._accepts_memo) <= asgi._MEMO_MAX
    assert len(asgi._is_json_memo) <= asgi._MEMO_MAX
    long_value = "application/json, " + "x" * (asgi._MEMO_CHARS + 1)
    assert asgi.accepts(long_value) == (True, False)
    assert long_value not in asgi._accepts_memo  # judged, never kept


def test_host_and_origin_verdicts_are_bounded_and_unchanged() -> None:
    app = StreamableHttpApp(Server("memo", "1"), security=HttpSecurity())
    for _ in range(2):
        assert app._host_and_origin_ok("127.0.0.1:8000", None)
        assert not app._host_and_origin_ok("evil.example", None)
        assert not app._host_and_origin_ok("localhost", "http://evil.example")
        assert app._host_and_origin_ok("localhost", "http://localhost:3000")
    for i in range(10 * asgi._MEMO_MAX):
        assert not app._host_and_origin_ok(f"host-{i}.example", None)
    assert len(app._allowed) <= asgi._MEMO_MAX
    assert not app._host_and_origin_ok("h" * (asgi._MEMO_CHARS + 1), None)
    assert ("h" * (asgi._MEMO_CHARS + 1), None) not in app._allowed
