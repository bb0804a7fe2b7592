"""Who may reach a task (the Tasks extension's ownership rule, held here alone).

SEP-2663 ("Security Implications"): servers MUST check on each task-related request that the
client may access the task; task ids MAY serve as bearer tokens. The rule mcpgen holds:

- A task is bound, when it is created, to its owner: the OAuth principal (the verified token's
  issuer, subject and client id) on a server that checks tokens; otherwise nobody in particular
  (tasks exist in the 2026-07-28 era only, tasks.py, where without auth there is neither a
  session nor a caller identity): the id itself is the bearer credential (144 random bits), and
  such an anonymous task is never reachable with a token, nor the other way round.
- Every request about a task (tasks/get, tasks/update, tasks/cancel, a subscriptions/listen for
  its notifications) is made by an owner computed the same way; a task whose stored owner is not
  that one is answered exactly as an unknown task: no oracle.

The owner is stored in the task's record (shared by every worker) as a digest, never as the
token claims themselves; it is checked on every read of the record.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import RequestContext

# The owner of tasks created statelessly without auth: anyone holding the task id.
ANONYMOUS = "anonymous"
# What an owner field read back from the store must look like (records are untrusted).
_OWNER = re.compile(r"anonymous|[0-9a-f]{64}")


def task_owner(context: RequestContext) -> str:
    """The owner a task created by this request gets, and the one a request about a task must be."""
    auth = context.auth
    if auth is not None:
        parts = ["oauth", auth.issuer, auth.subject, auth.client_id]
    else:
        return ANONYMOUS
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()


def valid_owner(value: object) -> bool:
    """Whether a stored owner field is one task_owner could have produced."""
    return isinstance(value, str) and _OWNER.fullmatch(value) is not None


def may_reach(stored_owner: str, context: RequestContext) -> bool:
    """Whether this request may see the task whose record names `stored_owner`."""
    return valid_owner(stored_owner) and hmac.compare_digest(stored_owner, task_owner(context))


__all__ = ["ANONYMOUS", "may_reach", "task_owner", "valid_owner"]
