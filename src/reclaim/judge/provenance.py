"""Was a number computed, or written down? The rule judge's check for hard-coded results.

What it can tell: a value that appears as a literal in a program the agent wrote (including
reproduce.sh itself) was not computed by re-execution, whatever the re-execution printed.
What it cannot tell: a number assembled at run time (0.9 + 0.0133) or read from a data file
the agent wrote; those are for the LLM judge, and show up here only as flags.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

CODE_SUFFIXES = {
    ".sh", ".bash", ".zsh", ".py", ".ipynb", ".r", ".jl", ".js", ".mjs", ".ts", ".pl", ".rb",
    ".m", ".lua", ".c", ".cc", ".cpp", ".h", ".hpp", ".java", ".go", ".rs", ".awk", ".sed",
    ".mk", ".cmake", ".scala", ".kt", ".php", ".tcl",
}
CODE_NAMES = {"Makefile", "makefile", "Dockerfile", "Snakefile", "justfile"}
MAX_SCAN_BYTES = 2 << 20
MIN_SIGNIFICANT_DIGITS = 3
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])")


@dataclass(frozen=True)
class Literal:
    path: str
    line: int
    text: str
    is_code: bool


def significant_digits(value: float) -> int:
    """Significant digits of the shortest repr of ``value``: 0.9133 -> 4, 3.0 -> 1."""
    mantissa = repr(abs(value)).lower().split("e")[0].replace(".", "").lstrip("0").rstrip("0")
    return len(mantissa)


def checkable(value: float) -> bool:
    """Too few digits (3.0, 0.5) and a literal match would be chance, not evidence."""
    return significant_digits(value) >= MIN_SIGNIFICANT_DIGITS


def is_code(path: Path) -> bool:
    if path.suffix.lower() in CODE_SUFFIXES or path.name in CODE_NAMES:
        return True
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == b"#!"
    except OSError:
        return False


def find_literals(root: Path, files: list[str], value: float) -> list[Literal]:
    """Every place in ``files`` (relative to root) where ``value`` is written as a number."""
    found = []
    for rel in files:
        path = root / rel
        try:
            if path.stat().st_size > MAX_SCAN_BYTES:
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # binary files are data, not programs
        code = is_code(path)
        for n, line in enumerate(text.splitlines(), 1):
            for m in _NUMBER.finditer(line):
                try:
                    x = float(m.group())
                except ValueError:
                    continue
                if abs(x - value) <= 1e-12 * max(1.0, abs(value)):
                    found.append(Literal(rel, n, line.strip()[:200], code))
    return found


def reads_texts(root: Path, files: list[str], names: tuple[str, ...]) -> list[str]:
    """The programs among ``files`` that name one of ``names`` (e.g. paper.md): where a result
    could be copied from the paper rather than computed."""
    found = []
    for rel in files:
        path = root / rel
        try:
            if not is_code(path) or path.stat().st_size > MAX_SCAN_BYTES:
                continue
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if any(n in text for n in names):
            found.append(rel)
    return found
