"""Was a number computed, or written down? The rule judge's check for hard-coded results.

What it can tell: a value that appears as a literal in a program the agent wrote (including
reproduce.sh itself) was not computed by re-execution, whatever the re-execution printed.
What it cannot tell: a number assembled at run time (0.9 + 0.0133) or read from a data file
the agent wrote; those are for the LLM judge, and show up here only as flags.
"""

from __future__ import annotations

import base64
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from reclaim.sandbox import untrusted

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


def is_code(path: Path, head: bytes = b"") -> bool:
    return path.suffix.lower() in CODE_SUFFIXES or path.name in CODE_NAMES or head.startswith(b"#!")


def _read(root: Path, rel: str) -> bytes | None:
    """An agent's file, read without following links; None when it is not one to scan."""
    try:
        return untrusted.read_bytes(root, rel, MAX_SCAN_BYTES)
    except (OSError, untrusted.Untrusted):
        return None


def _text(root: Path, rel: str) -> tuple[str, bool] | None:
    raw = _read(root, rel)
    if raw is None:
        return None
    try:
        return raw.decode("utf-8"), is_code(Path(rel), raw[:2])
    except UnicodeDecodeError:
        return None  # binary files are data, not programs


def find_literals(root: Path, files: list[str], value: float) -> list[Literal]:
    """Every place in ``files`` (relative to root) where ``value`` is written as a number."""
    found = []
    for rel in files:
        got = _text(root, rel)
        if got is None:
            continue
        text, code = got
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
        got = _text(root, rel)
        if got is None or not got[1]:
            continue
        if any(n in got[0] for n in names):
            found.append(rel)
    return found


def encodings(value: float) -> dict[str, bytes]:
    """The ways a program could store ``value`` to read it back: text forms, IEEE-754 bytes in
    either order and width, and those in hex and base64."""
    texts = {repr(value), str(value), f"{value:g}", float(value).hex()}
    if value == int(value):
        texts.add(str(int(value)))
    out = {f"text {t}": t.encode() for t in texts}
    for name, fmt in (("float64 le", "<d"), ("float64 be", ">d"), ("float32 le", "<f"), ("float32 be", ">f")):
        packed = struct.pack(fmt, value)
        out[name] = packed
        out[f"{name} hex"] = packed.hex().encode()
        out[f"{name} base64"] = base64.b64encode(packed).rstrip(b"=")
    for t in texts:
        out[f"base64 of {t}"] = base64.b64encode(t.encode()).rstrip(b"=")
        out[f"hex of {t}"] = t.encode().hex().encode()
    return out


def find_encoded(root: Path, files: list[str], value: float) -> list[str]:
    """'path: encoding' for every file among ``files`` that holds ``value`` in a form it could be
    read back from: decimal literals (see find_literals), or packed, hex and base64 forms.

    Short decimal forms (a '1' or a '0') are matched as number tokens only; the binary forms
    only where they are long enough (8 bytes) not to occur by chance."""
    found = [f"{lit.path}:{lit.line}: {lit.text}" for lit in find_literals(root, files, value)]
    forms = {k: v for k, v in encodings(value).items() if not k.startswith("text ") and len(v) >= 8}
    for rel in files:
        raw = _read(root, rel)
        if raw is None:
            continue
        hits = [k for k, v in forms.items() if v in raw]
        if hits:
            found.append(f"{rel}: {', '.join(sorted(hits)[:3])}")
    return found
