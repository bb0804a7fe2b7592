"""MkDocs hooks of the documentation site (mkdocs.yml): README.md is the site's home page.

The README links into the site as `docs/<page>.md`, which GitHub follows from the repository's
front page; on the site the same page sits at `<page>.md`, so those links are rewritten, and
`mkdocs build --strict` then checks every one of them like any link between pages.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

README = Path(__file__).resolve().parents[1] / "README.md"
DOCS_LINK = re.compile(r"\]\(docs/")


def home_page(readme: str) -> str:
    """The README as the site's index.md: its links into docs/ made relative to docs/."""
    return DOCS_LINK.sub("](", readme)


def on_files(files: Files, config: Any) -> Files:
    files.append(File.generated(config, "index.md", content=home_page(README.read_text(encoding="utf-8"))))
    return files
