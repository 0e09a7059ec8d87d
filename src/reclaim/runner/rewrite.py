"""Released files with their bytes changed and their meaning kept: is a number keyed to the bytes?

A number can be made to depend on the materials without being computed from them: the paper's
value XOR-ed with a hash of the released files fails without them and changes when they are
scrambled. Computed results do not care how a file is written. So a re-run can see the
release rewritten in ways every reader of the format takes as the same content: a program gets a
comment line with a random token (in its language's comment syntax; a Python program's at a random
place between its lines, another's at its end, no word naming the harness), a delimited
table's decimals gain a trailing zero ("0.5" -> "0.50"), a JSON file is re-indented, an .npy
array's header is padded, an .npz archive is stored with other compression, a pickle gets no-op
opcode pairs at random places (parsed, never loaded). A result keyed to the
bytes changes; a computed one does not. Files of other formats are left as they are.

A reader that canonicalises first (hashing a program's syntax tree, a table's parsed values)
is keyed to the meaning, not the bytes: only a perturbation of the inputs (verify.perturb) or the
LLM judge tells such a number from a computed one.
"""

from __future__ import annotations

import io
import json
import os
import pickletools
import random
import re
import shutil
import tokenize
import zipfile
from collections.abc import Callable
from pathlib import Path

from reclaim.runner.scramble import DELIMITERS, MAX_BYTES
from reclaim.runner.views import keep_times

HASH_COMMENT = {".py", ".pyx", ".sh", ".bash", ".zsh", ".r", ".jl", ".pl", ".rb", ".toml", ".yaml", ".yml",
                ".cfg", ".ini", ".mk", ".cmake", ".awk", ".sed", ".tcl"}
SLASH_COMMENT = {".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".java", ".js", ".mjs", ".cjs",
                 ".ts", ".go", ".rs", ".scala", ".kt", ".swift", ".php"}
OTHER_COMMENT = {".m": "%", ".tex": "%", ".lua": "--", ".sql": "--", ".hs": "--"}
NAMED = {"Makefile": "#", "makefile": "#", "Dockerfile": "#", "Snakefile": "#"}
PICKLES = {".pkl", ".pickle", ".pck", ".p"}
"""Pickles by name; protocol 2 and later are known by their first bytes too (SGC's ind.cora.x)."""
_DECIMAL = re.compile(r"(?<![\w.])(-?\d+\.\d+)(?![\w.])")


def comment_for(name: str) -> str | None:
    if name in NAMED:
        return NAMED[name]
    suffix = Path(name).suffix.lower()
    if suffix in HASH_COMMENT:
        return "#"
    if suffix in SLASH_COMMENT:
        return "//"
    return OTHER_COMMENT.get(suffix)


def rewrite_bytes(name: str, raw: bytes, rng: random.Random, code: bool) -> bytes | None:
    """``raw`` written another way with the same meaning to its readers; None when the format is
    not one of those known here (left as it is). ``code``: a file of released code (its programs
    and configs get a comment; nothing else is touched), else of data or weights."""
    if code or comment_for(name) is not None:  # a program shipped with the data is rewritten as code is
        if (c := comment_for(name)) is None:
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        mark = f"{c} {rng.getrandbits(64):016x}"  # an ordinary comment: no word says who wrote it
        if Path(name).suffix.lower() == ".py" and (inside := _between_lines(text, mark, rng)) is not None:
            return inside.encode()
        return raw + (b"" if raw.endswith(b"\n") or not raw else b"\n") + f"{mark}\n".encode()
    suffix = Path(name).suffix.lower()
    if suffix == ".npy":
        return _npy(raw)
    if suffix == ".npz":
        return _npz(raw)
    if suffix in PICKLES or (raw[:1] == b"\x80" and raw[1:2] in (b"\x02", b"\x03", b"\x04", b"\x05")):
        return _pickle(raw, rng)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if suffix == ".json":
        try:
            return (json.dumps(json.loads(text), indent=3) + "\n").encode()
        except (ValueError, RecursionError):
            return None
    if suffix in (".csv", ".tsv", ".txt", ".dat") or any(d in text[:2000] for d in DELIMITERS):
        out, n = _DECIMAL.subn(lambda m: m.group(1) + "0", text)
        return out.encode() if n else None
    return None


def _between_lines(text: str, mark: str, rng: random.Random) -> str | None:
    """A Python program with the comment ``mark`` on a line of its own at a place chosen at
    random among those between two logical or blank lines (never inside a string or after a
    backslash): not the last line a program could strip, and not at the same place in two
    trials. None when the program does not tokenize."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    lines = text.splitlines(keepends=True)
    places = sorted({t.end[0] for t in tokens if t.type in (tokenize.NEWLINE, tokenize.NL) and t.end[0] <= len(lines)})
    if not places or not lines[-1].endswith("\n"):
        return None
    at = rng.choice(places)
    return "".join(lines[:at]) + mark + "\n" + "".join(lines[at:])


def _npy(raw: bytes) -> bytes | None:
    """The same array with its header padded by 64 more spaces (np.load reads it the same)."""
    if not raw.startswith(b"\x93NUMPY") or len(raw) < 10:
        return None
    major = raw[6]
    size = 2 if major == 1 else 4
    hlen = int.from_bytes(raw[8:8 + size], "little")
    header = raw[8 + size:8 + size + hlen]
    if not header.endswith(b"\n"):
        return None
    new = header[:-1] + b" " * 64 + b"\n"
    if major == 1 and len(new) > 0xFFFF:
        return None
    return raw[:8] + len(new).to_bytes(size, "little") + new + raw[8 + size + hlen:]


def _pickle(raw: bytes, rng: random.Random) -> bytes | None:
    """The same pickle (or sequence of pickles) with a few no-op pairs, MARK then POP_MARK, at
    opcode boundaries chosen at random: every unpickler builds the same objects. The stream is
    only parsed (pickletools.genops), never loaded: a pickle runs code when it is loaded. Inside
    a protocol 4+ frame no byte may be added, so there a pair goes right after the PROTO opcode."""
    if len(raw) > MAX_BYTES:
        return None
    places: list[int] = []
    stream = io.BytesIO(raw)
    try:
        while stream.tell() < len(raw):
            framed = False
            for op, _, pos in pickletools.genops(stream):
                if op.name == "FRAME":
                    framed = True
                if op.name == "PROTO" or (not framed and op.name != "STOP" and pos is not None):
                    places.append(stream.tell())
    except (ValueError, EOFError, UnicodeDecodeError, IndexError, TypeError):
        return None  # not a pickle, or one cut short: left as it is
    if not places:
        return None
    chosen = sorted(rng.sample(places, min(len(places), rng.randint(1, 3))), reverse=True)
    out = bytearray(raw)
    for at in chosen:
        out[at:at] = b"(1"
    return bytes(out)


def _npz(raw: bytes) -> bytes | None:
    """The same arrays, stored with the other compression (np.load reads them the same)."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as z:
            items = [(i.filename, z.read(i), i.compress_type) for i in z.infolist()]
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data, kind in items:
            z.writestr(name, data, compress_type=zipfile.ZIP_STORED if kind != zipfile.ZIP_STORED
                       else zipfile.ZIP_DEFLATED)
    return out.getvalue()


def rewritten_view(src: Path, dest: Path, seed: str, code: bool,
                   also: Callable[[str, bytes], bytes | None] | None = None) -> list[str]:
    """A copy of a material from the cache (harness-made, trusted) with every file of a known
    format rewritten, meaning kept (``code``: the released code's programs, else data or
    weights), then changed by ``also`` (path, bytes -> new bytes or None: the answers hidden);
    the others are hard links where the disk allows. Returns the relative paths rewritten."""
    rng = random.Random(f"{seed}:{src.name}:rewrite")
    if dest.exists():
        shutil.rmtree(dest)
    done = []
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel_root = Path(root).relative_to(src)
        (dest / rel_root).mkdir(parents=True, exist_ok=True)
        for name in sorted(files) + [d for d in dirs if (Path(root) / d).is_symlink()]:
            s_path, d_path, rel = Path(root) / name, dest / rel_root / name, (rel_root / name).as_posix()
            if s_path.is_symlink():
                os.symlink(os.readlink(s_path), d_path)
                continue
            out = None
            if s_path.stat().st_size <= MAX_BYTES:
                raw = s_path.read_bytes()
                out = rewrite_bytes(name, raw, rng, code)
                if also is not None and (hidden := also(rel, raw if out is None else out)) is not None:
                    out = hidden
            if out is not None:
                d_path.write_bytes(out)
                os.chmod(d_path, s_path.stat().st_mode & 0o777)
                done.append(rel)
                continue
            try:
                os.link(s_path, d_path)
            except OSError:
                shutil.copy2(s_path, d_path)
    for p in [dest, *dest.rglob("*")]:  # readable by the sandbox's user, as the cache is
        if not p.is_symlink():
            p.chmod(p.stat().st_mode | 0o444 | (0o111 if p.is_dir() else 0))
    keep_times(src, dest)
    return done
