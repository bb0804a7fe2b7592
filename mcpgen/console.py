"""What the CLI tells a person on stderr while it works, besides errors and results.

On a terminal, one line that updates in place names the stage and its counts (reading,
validating, models, formatting, writing) and is cleared when the stage ends; otherwise
nothing until the one summary line (`wrote N files to DIR (M tools)`, which scripts read).
`--quiet` prints nothing but errors; `--verbose` prints every stage on its own line with
its time, terminal or not. Errors are never routed through here: they always print.
"""

from __future__ import annotations

import enum
import re
import sys
import time
from typing import TextIO


class Verbosity(enum.IntEnum):
    QUIET = 0
    NORMAL = 1
    VERBOSE = 2


class Console:
    """Stage lines and summaries for one process (the CLI sets its verbosity from the flags)."""

    def __init__(self, stream: TextIO | None = None, verbosity: Verbosity = Verbosity.NORMAL) -> None:
        self._stream = stream
        self.verbosity = verbosity
        self._live_text = ""  # what the updating line shows now ("" when cleared)
        self._stage_started = 0.0
        self._stage = ""

    @property
    def stream(self) -> TextIO:
        return self._stream or sys.stderr  # looked up late: tests and click swap sys.stderr

    @property
    def live(self) -> bool:
        """An updating line is shown: stderr is a terminal and nobody asked for quiet or a log."""
        if self.verbosity is not Verbosity.NORMAL:
            return False
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def stage(self, name: str, detail: str = "") -> None:
        """A stage begins: `models`, `12 tools`."""
        self._finish_stage()
        self._stage, self._stage_started = f"{name} {detail}".strip(), time.monotonic()
        if self.live:
            self._show(f"mcpgen: {self._stage} ...")

    def status(self, text: str) -> None:
        """A passing note inside a stage (`connected to weather; listing tools`): terminal only."""
        if self.live:
            self._show(f"mcpgen: {text}")
        elif self.verbosity is Verbosity.VERBOSE:
            self._write(f"mcpgen: {text}")

    def done(self) -> None:
        """Work ended (successfully or not): the updating line is cleared before anything else prints."""
        self._finish_stage()
        self._stage = ""
        self._clear()

    def info(self, line: str) -> None:
        """A summary or note for people (`wrote 5 files to out (1 tool)`); not with --quiet."""
        self._clear()
        if self.verbosity is not Verbosity.QUIET:
            self._write(line)

    def _finish_stage(self) -> None:
        if self._stage and self.verbosity is Verbosity.VERBOSE:
            self._write(f"mcpgen: {self._stage} ({time.monotonic() - self._stage_started:.2f} s)")
        self._stage = ""

    def _show(self, text: str) -> None:
        text = _printable(text)[:200]
        self._live_text = text
        self.stream.write(f"\r\x1b[K{text}")
        self.stream.flush()

    def _clear(self) -> None:
        if self._live_text:
            self._live_text = ""
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def _write(self, line: str) -> None:
        self._clear()
        self.stream.write(_printable(line) + "\n")
        self.stream.flush()


# What never reaches a terminal raw: C0 controls but tab and line feed (ESC starts CSI and OSC
# sequences, CR rewrites the line, BEL...), DEL, C1 controls (0x9b is a one-byte CSI, 0x9d an
# OSC), line separators, and the bidirectional overrides and isolates that reorder a line.
_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_text(text: str) -> str:
    """Text fit for a terminal: every character above shown as its `\\uXXXX` escape (readable, and
    inside a JSON string the same character), the rest untouched. The one sanitiser for all
    that mcpgen prints: `echo`, the console's lines, and the CLI's error path."""
    return _TERMINAL_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def echo(message: object = "", *, err: bool = False, nl: bool = True) -> None:
    """click.echo of `message` through terminal_text: how the CLI prints results and errors."""
    import click  # here: quick_check imports this module before the CLI (and click) loads

    click.echo(terminal_text(str(message)), err=err, nl=nl)


def _printable(text: str) -> str:
    """Server names and the like are untrusted: no escape sequence reaches the terminal."""
    return terminal_text(text).replace("\n", " ")


# The process's console: the CLI sets its verbosity; stages report to it.
console = Console()
