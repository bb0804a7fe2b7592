"""What in a source's command line or URL may be a secret, and the forms of both that are safe to keep.

A source is recorded in generated code (SOURCE_COMMAND, SOURCE_URL: `connect()` reuses it), in
snapshots and in the lines mcpgen prints. A token passed as `--token X`, `--api-key=X`, a bare
`sk-...`, a URL's `user:password@` or its `?access_token=` must reach none of them. The rules
are deliberately wide: a command wrongly judged secret is only left unrecorded (`connect()` then
needs the command given), while one wrongly judged safe leaks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ..runtime.core import redaction

MASK = "***"

# Words that make an option, an environment variable or a query parameter name a secret.
_SECRET_WORDS = (
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "accesskey",
    "privatekey",
    "credential",
    "authorization",
    "bearer",
    "cookie",
    "signature",
)
# Whole parts of a name (split at -, _ and .) that do the same: `--key`, `x-auth`, `sig`.
_SECRET_PARTS = frozenset({"key", "auth", "pat", "pwd", "sig", "jwt", "session"})
# Values that are credentials by their look whatever they are called: schemes, vendor prefixes, JWTs.
_SECRET_VALUE = re.compile(
    r"(?i)^(bearer|basic|token)\s+\S"
    r"|^(sk|rk|pk)[-_][A-Za-z0-9_-]{8,}"
    r"|^(ghp|gho|ghs|ghu|ghr|github_pat|glpat|xox[abprs])[-_]"
    r"|^(AKIA|ASIA)[A-Z0-9]{12,}"
    r"|^AIza[A-Za-z0-9_-]{20,}"
    r"|^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\."
)

_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s\"']+")


def secret_name(name: str) -> bool:
    """`--api-key`, `X-Auth-Token`, `access_token`, `PASSWORD`: a name whose value is a secret."""
    lowered = name.lower().lstrip("-")
    squashed = re.sub(r"[^a-z0-9]", "", lowered)
    if any(word in squashed for word in _SECRET_WORDS):
        return True
    return any(part in _SECRET_PARTS for part in re.split(r"[^a-z0-9]+", lowered))


def secret_value(value: str) -> bool:
    """A value that is a credential by its look (a bearer header, a vendor key, a JWT)."""
    return bool(_SECRET_VALUE.search(value.strip()))


def url_secrets(url: str) -> list[str]:
    """The userinfo of a URL and the values of its secret-named (or secret-looking) query parameters."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return [url]
    found = [s for s in (parts.username, parts.password) if s]
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and (secret_name(name) or secret_value(value)):
            found.append(value)
    return found


def public_url(url: str) -> str:
    """The URL without its userinfo and without its secret query parameters (all else kept in order)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port is not None else "")
    query = [
        (name, value)
        for name, value in parse_qsl(parts.query, keep_blank_values=True)
        if not (secret_name(name) or secret_value(value))
    ]
    return urlunsplit((parts.scheme, netloc, parts.path, urlencode(query), parts.fragment))


def _argument(argv: Sequence[str], i: int) -> tuple[str, list[str]]:
    """argv[i] as it may be shown, and the secrets in it."""
    arg = argv[i]
    previous = argv[i - 1] if i else ""
    if previous.startswith("-") and "=" not in previous and secret_name(previous) or secret_value(arg):
        return MASK, [arg]  # `--token X`, or a value that is a credential by its look
    urls = _URL.findall(arg)
    if urls:
        secrets = [s for url in urls for s in url_secrets(url)]
        shown = arg
        for url in urls:
            shown = shown.replace(url, public_url(url))
        return shown, secrets
    name, sep, value = arg.partition("=")
    if sep and value and secret_name(name):
        return f"{name}={MASK}", [value]  # `--token=X`, `TOKEN=X`
    name, sep, value = arg.partition(":")
    if sep and value.strip() and re.fullmatch(r"[\w-]+", name) and secret_name(name):
        return f"{name}: {MASK}", [value.strip()]  # `Authorization: Bearer X` (a header)
    return arg, []


def argv_secrets(argv: Sequence[str]) -> list[str]:
    """Every argument value that may be a secret: `--token X`, `--token=X`, `TOKEN=X`, `sk-...`,
    a URL's userinfo or token parameter."""
    return [s for i in range(len(argv)) for s in _argument(argv, i)[1] if s]


def scrub(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret replaced by ***, in every form a peer may echo it in (raw,
    percent-encoded, base64, JSON-escaped, cut short): the runtime's one scrubber."""
    return redaction.scrub(text, secrets, MASK)


def shown_command(argv: Sequence[str]) -> str:
    """The command line as a person may see it: each secret value masked."""
    return " ".join(_argument(argv, i)[0] for i in range(len(argv)))
