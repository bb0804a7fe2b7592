"""`--store` for a generated server's `__main__`: the flag, its environment variable, and the
check at start-up (a bad URL or an unreachable store: one line, exit 2)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

from ...core.errors import StoreUnavailable
from ...core.extras import install_hint
from . import open_store
from .base import Store

STORE_VARIABLE = "MCPGEN_STORE"


def add_store_arguments(parser: argparse.ArgumentParser, environ: Mapping[str, str] | None = None) -> None:
    """Add `--store URL`; its default comes from MCPGEN_STORE (the flag wins)."""
    env = os.environ if environ is None else environ
    parser.add_argument(
        "--store",
        default=env.get(STORE_VARIABLE) or "memory",
        metavar="URL",
        help=(
            "where HTTP sessions, stream logs and notifications are shared between workers: memory "
            f"(one process, the default) or redis://HOST:PORT/DB, rediss://... (env {STORE_VARIABLE})"
        ),
    )


def store_from_args(args: argparse.Namespace) -> Store:
    """The store `--store` names, reachable: anything else is one line on stderr and exit 2
    (the URL's password never shown)."""
    try:
        store = open_store(getattr(args, "store", None))
        check = getattr(store, "check", None)
        if check is not None:
            check()
    except (ValueError, StoreUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    except ImportError as exc:  # redis-py: the `redis` extra
        print(f"error: --store redis needs the redis extra ({install_hint('redis', 'redis')}): {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return store
