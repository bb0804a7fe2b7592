"""The peers of the scale-out tests and benches: a real redis-server and a real nginx doing plain
round-robin (no stickiness) over several upstream servers, each on a free 127.0.0.1 port, with
its files in a folder of the caller's (a tmp_path), stopped with the `with` block.

    with redis_server(tmp_path) as redis_url, round_robin(tmp_path, [base_a, base_b]) as proxy:
        ...  # proxy.url is http://127.0.0.1:PORT/mcp, alternating between the two upstreams

Debian's packages (`apt-get install redis-server nginx`; .ci/run installs them when missing).
`REDIS_SERVER` and `NGINX` name other executables.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from tests.serving import ServerProcess, needs_peer

REDIS_SERVER = os.environ.get("REDIS_SERVER") or shutil.which("redis-server") or "/usr/bin/redis-server"
NGINX = os.environ.get("NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"

needs_redis = needs_peer(
    not os.access(REDIS_SERVER, os.X_OK), "redis-server is not installed (apt-get install redis-server)"
)
needs_nginx = needs_peer(not os.access(NGINX, os.X_OK), "nginx is not installed (apt-get install nginx)")


def redis_argv(folder: Path) -> list[str]:
    """redis-server on 127.0.0.1:{port}, nothing persisted, its files in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    return [
        REDIS_SERVER,
        "--bind",
        "127.0.0.1",
        "--port",
        "{port}",
        "--save",
        "",
        "--appendonly",
        "no",
        "--dir",
        str(folder),
        "--protected-mode",
        "yes",
    ]


class RedisServer:
    """A redis-server that can be stopped and started again on the same port (the clients of a
    restarted Redis reconnect to the address they know)."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.process = ServerProcess(redis_argv(tmp_path / "redis"), path="", log_dir=tmp_path)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.process.port}/0"

    def start(self) -> RedisServer:
        self.process.start()
        return self

    def stop(self) -> None:
        self.process.stop()

    def restart(self) -> None:
        """Stop, then start afresh on the same port (nothing is persisted: the data is gone)."""
        port = self.process.port
        self.process.stop()
        self.process = ServerProcess(redis_argv(self.tmp_path / "redis"), path="", log_dir=self.tmp_path, port=port)
        self.process.start()


@contextmanager
def redis_server(tmp_path: Path) -> Iterator[str]:
    """A fresh redis-server; yields its URL (redis://127.0.0.1:PORT/0)."""
    server = RedisServer(tmp_path).start()
    try:
        yield server.url
    finally:
        server.stop()


# nginx's configuration, its listening port left as __PORT__ for the shim below to fill in with the
# port ServerProcess chose (nginx takes its port from the file only). Round-robin is nginx's default;
# upstream keep-alive connections as a real deployment would have; no buffering, so SSE events
# pass as they come; a refused connection is retried on the next upstream (a POST that reached a
# worker is not: nginx never replays a non-idempotent request that was sent).
_NGINX_CONF = """\
daemon off;
worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    upstream mcp_workers {{
{servers}
        keepalive 32;
        # Under the workers' own idle keep-alive (5 s): nginx never reuses a connection that a
        # worker is closing (which nginx would answer with a 502, not a retry, for a POST).
        keepalive_timeout 4s;
    }}
    server {{
        listen 127.0.0.1:__PORT__;
        location / {{
            proxy_pass http://mcp_workers;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_cache off;
            proxy_read_timeout 300s;
            proxy_next_upstream error timeout;
        }}
    }}
}}
"""

# Fills the port into the configuration, then becomes nginx (so stopping it stops nginx).
_SHIM = """\
import os, sys
template, conf, port, nginx, prefix = sys.argv[1:6]
with open(template) as f:
    text = f.read()
with open(conf, "w") as f:
    f.write(text.replace("__PORT__", port))
os.execv(nginx, [nginx, "-p", prefix, "-c", conf])
"""


def nginx_config(folder: Path, upstreams: Sequence[str]) -> str:
    """The configuration text for round-robin over `upstreams` (host:port each), port left open."""
    servers = "\n".join(f"        server {address} max_fails=1 fail_timeout=5s;" for address in upstreams)
    return _NGINX_CONF.format(folder=folder, servers=servers)


@contextmanager
def round_robin(tmp_path: Path, upstreams: Sequence[str], *, path: str = "/mcp") -> Iterator[ServerProcess]:
    """nginx on a free port spreading requests in turn over `upstreams` (host:port, or base URLs
    like http://127.0.0.1:8001); yields the ServerProcess (`.url` is the proxied endpoint)."""
    folder = tmp_path / "nginx"
    folder.mkdir(parents=True, exist_ok=True)
    addresses = [u.split("://", 1)[-1].split("/", 1)[0] for u in upstreams]
    template = folder / "nginx.conf.in"
    template.write_text(nginx_config(folder, addresses))
    argv = [sys.executable, "-c", _SHIM, str(template), str(folder / "nginx.conf"), "{port}", NGINX, str(folder)]
    server = ServerProcess(argv, path=path, log_dir=tmp_path).start()
    try:
        yield server
    finally:
        server.stop()


class Cluster:
    """Worker processes of one server behind nginx's round-robin: `url` is the proxied endpoint."""

    def __init__(self, workers: list[ServerProcess], proxy: ServerProcess) -> None:
        self.workers = workers
        self.proxy = proxy

    @property
    def url(self) -> str:
        return self.proxy.url

    def assert_alive(self) -> None:
        for worker in [*self.workers, self.proxy]:
            worker.assert_alive()

    def logs(self) -> str:
        return "\n".join(f"--- {w.argv}\n{w.tail()}" for w in self.workers)


@contextmanager
def cluster(
    tmp_path: Path,
    argv: Sequence[str],
    *,
    workers: int = 2,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    path: str = "/mcp",
) -> Iterator[Cluster]:
    """`workers` processes of `argv` ("{port}" filled in each), each on its own port, behind nginx.
    Every worker gets the same request-state key, as a real deployment's must."""
    shared = {"MCPGEN_REQUEST_STATE_KEY": "cluster-test-" + "k" * 40, **(env or {})}
    started: list[ServerProcess] = []
    try:
        for _ in range(workers):
            started.append(ServerProcess(argv, path=path, cwd=cwd, env=shared, log_dir=tmp_path).start())
        with round_robin(tmp_path, [w.base for w in started], path=path) as proxy:
            yield Cluster(started, proxy)
    finally:
        for worker in started:
            worker.stop()
