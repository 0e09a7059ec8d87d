"""Was a number computed, or written down? The rule judge's check for hard-coded results.

What it can tell: a value that appears as a literal in a program the agent wrote (including
reproduce.sh itself) was not computed by re-execution, whatever the re-execution printed.
What it cannot tell: a number assembled at run time (0.9 + 0.0133) or read from a data file
the agent wrote; those are for the LLM judge, and show up here only as flags.

Which files are the agent's own programs is judge/scope.py's decision (installed packages and
package caches are not). A notebook is read by its code cells only: its stored outputs and its
markdown are what a past run printed and what someone wrote about it, not code (a malformed
notebook is read as plain text). A file that is not UTF-8 text has no literals, unless it is named
as a program (a script in another encoding is still a script); find_encoded still searches every
file for the value's packed forms.
"""

from __future__ import annotations

import base64
import json
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from reclaim.sandbox import untrusted

CODE_SUFFIXES = {
    ".sh", ".bash", ".zsh", ".py", ".ipynb", ".r", ".jl", ".js", ".mjs", ".ts", ".pl", ".rb",
    ".m", ".lua", ".c", ".cc", ".cpp", ".h", ".hpp", ".java", ".go", ".rs", ".awk", ".sed",
    ".mk", ".cmake", ".scala", ".kt", ".php", ".tcl", ".pth", ".pyx", ".cjs", ".cts", ".mts", ".jsx", ".tsx",
}
CODE_NAMES = {"Makefile", "makefile", "Dockerfile", "Snakefile", "justfile"}
MAX_SCAN_BYTES = 2 << 20
MAX_CODE_BYTES = 16 << 20  # a program padded past MAX_SCAN_BYTES is still read
MIN_SIGNIFICANT_DIGITS = 3
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w])")


@dataclass(frozen=True)
class Literal:
    path: str
    line: int
    """The line in the file; in a notebook, the line within its code cell ``cell``."""
    text: str
    is_code: bool
    cell: int | None = None
    """The notebook cell (from 1, counting every cell) that holds it."""

    @property
    def where(self) -> str:
        """'run.py:12', or 'nb.ipynb cell 3 line 2'."""
        return f"{self.path}:{self.line}" if self.cell is None else f"{self.path} cell {self.cell} line {self.line}"


@dataclass(frozen=True)
class Text:
    """What of a file the literal check reads: (cell or None, text) parts."""

    parts: list[tuple[int | None, str]]
    code: bool


def significant_digits(value: float) -> int:
    """Significant digits of the shortest repr of ``value``: 0.9133 -> 4, 3.0 -> 1."""
    mantissa = repr(abs(value)).lower().split("e")[0].replace(".", "").lstrip("0").rstrip("0")
    return len(mantissa)


def checkable(value: float) -> bool:
    """Too few digits (3.0, 0.5) and a literal match would be chance, not evidence."""
    return significant_digits(value) >= MIN_SIGNIFICANT_DIGITS


def is_code(path: Path, head: bytes = b"") -> bool:
    return path.suffix.lower() in CODE_SUFFIXES or path.name in CODE_NAMES or head.startswith(b"#!")


def _read(root: Path, rel: str, limit: int = MAX_SCAN_BYTES) -> bytes | None:
    """An agent's file, read without following links; None when it is not one to scan."""
    try:
        return untrusted.read_bytes(root, rel, limit)
    except (OSError, untrusted.Untrusted):
        return None


def _program(root: Path, rel: str) -> bool:
    """Named as a program, or starting with #!."""
    if is_code(Path(rel)):
        return True
    try:
        return untrusted.read_head(root, rel, 2)[0] == b"#!"
    except (OSError, untrusted.Untrusted):
        return False


def notebook_code(raw: bytes) -> list[tuple[int, str]] | None:
    """(cell number, source) of a notebook's code cells (nbformat 4, or 3's worksheets); None when
    ``raw`` is not a notebook's JSON, or is JSON that readers could read differently (a key twice)."""
    def pairs(items: list) -> dict:
        if len({k for k, _ in items}) != len(items):
            raise ValueError("a key twice")
        return dict(items)

    try:
        nb = json.loads(raw, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    if not isinstance(nb, dict):
        return None
    cells, key = nb.get("cells"), "source"
    if cells is None and isinstance(nb.get("worksheets"), list):  # nbformat 3
        cells, key = [c for w in nb["worksheets"] if isinstance(w, dict) for c in w.get("cells") or []], "input"
    if not isinstance(cells, list):
        return None
    out = []
    for n, cell in enumerate(cells, 1):
        if not isinstance(cell, dict):
            return None
        if cell.get("cell_type") != "code":
            continue
        src = cell.get(key, "")
        if isinstance(src, list) and all(isinstance(x, str) for x in src):
            src = "".join(src)
        if not isinstance(src, str):
            return None
        out.append((n, src))
    return out


def read_text(root: Path, rel: str) -> Text | None:
    """The text the literal check reads of an agent's file; None for binary and unreadable files."""
    code = _program(root, rel)
    raw = _read(root, rel, MAX_CODE_BYTES if code else MAX_SCAN_BYTES)
    if raw is None:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        if not code:
            return None  # binary files are data, not programs
        text = raw.decode("latin-1")  # a script in another encoding (bash does not care; Python has coding:)
    if rel.lower().endswith(".ipynb") and (cells := notebook_code(raw)) is not None:
        return Text(list(cells), True)
    return Text([(None, text)], code)


def find_literals(root: Path, files: list[str], value: float) -> list[Literal]:
    """Every place in ``files`` (relative to root) where ``value`` is written as a number."""
    found = []
    for rel in files:
        got = read_text(root, rel)
        if got is None:
            continue
        for cell, text in got.parts:
            for n, line in enumerate(text.splitlines(), 1):
                for m in _NUMBER.finditer(line):
                    try:
                        x = float(m.group())
                    except ValueError:
                        continue
                    if abs(x - value) <= 1e-12 * abs(value):  # relative: a literal 0 is not 1.5e-15
                        found.append(Literal(rel, n, line.strip()[:200], got.code, cell))
    return found


def altered(value: float) -> float:
    """Another value for ``value``'s literals in the re-run that alters them: far enough off that no
    tolerance takes it for the original, with as many digits."""
    return float(f"{value * 1.37 + (0.1 if value == 0 else 0):.{max(significant_digits(value), 3)}g}")


def alter_literals(raw: bytes, values: list[float]) -> bytes | None:
    """``raw`` with every number token equal to one of ``values`` replaced by its altered value
    (in comments, strings and code alike); None when there was none."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    hits = 0

    def one(m: re.Match) -> str:
        nonlocal hits
        try:
            x = float(m.group())
        except ValueError:
            return m.group()
        for v in values:
            if abs(x - v) <= 1e-12 * abs(v):
                hits += 1
                return repr(altered(v))
        return m.group()

    out = _NUMBER.sub(one, text)
    return out.encode("utf-8") if hits else None


def reads_texts(root: Path, files: list[str], names: tuple[str, ...]) -> list[str]:
    """The programs among ``files`` that name one of ``names`` (e.g. paper.md): where a result
    could be copied from the paper rather than computed."""
    found = []
    for rel in files:
        got = read_text(root, rel)
        if got is None or not got.code:
            continue
        if any(n in text for _, text in got.parts for n in names):
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
    found = [f"{lit.where}: {lit.text}" for lit in find_literals(root, files, value)]
    forms = {k: v for k, v in encodings(value).items() if not k.startswith("text ") and len(v) >= 8}
    for rel in files:
        raw = _read(root, rel)
        if raw is None:
            continue
        hits = [k for k, v in forms.items() if v in raw]
        if hits:
            found.append(f"{rel}: {', '.join(sorted(hits)[:3])}")
    return found
