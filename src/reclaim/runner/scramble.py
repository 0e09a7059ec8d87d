"""Released data and weights with their content scrambled, format kept: does the number follow them?

Withholding the materials catches a number printed without them; it does not catch a script
that opens the data (to count its rows, say) and then prints a number that owes nothing to what
the data says. So one more re-execution gets the same files with their content scrambled: in a
delimited text table every column is shuffled on its own and its numbers scaled by a random
factor at least 25 % away from 1 (integer columns stay integers), in .npy/.npz arrays the values
are shuffled and floats scaled, and in other text every number is scaled by one such factor
times a jitter of its own.
A table is read as CSV reads it (a quoted field may hold the delimiter).
Any result computed from the data changes; one that does not was not computed from it. Files
of other formats are left as they are, and the verdict says when nothing could be scrambled.

With ``verify.scramble: sample`` the stand-in is also a subsample: a table keeps one row in
``SUBSAMPLE`` (at least ``KEEP_MIN``), an array as many of its first axis, and a computation on a
sixteenth of the data costs about a sixteenth of one on all of it. A script that prints a number
whatever the data say prints it all the same; but one that writes the number only at the
release's exact size (its row count) and computes honestly at any other passes, where the whole
stand-in (same size, content scrambled) catches it: that is the price of the sample, and why
``whole`` is the default. A few rows may give a degenerate result (a perfect fit, no outlier):
where the number stays the same on the subsample, a scramble of every row decides, so honest
work is never judged on a sixteenth.
"""

from __future__ import annotations

import csv
import io
import random
import re
from pathlib import Path

from reclaim.judge import is_code
from reclaim.runner.views import keep_times
from reclaim.sandbox import identity, untrusted

MAX_BYTES = 256 << 20
SUBSAMPLE = 16
"""A scrambled stand-in keeps one row (or first-axis entry) in this many..."""
KEEP_MIN = 16
"""... and at least this many, where there are more."""
DELIMITERS = (",", "\t", ";")
_INT = re.compile(r"^[-+]?\d+$")


def factor(rng: random.Random) -> float:
    """A scale at least 25 % away from 1, up or down: a mean, a sum or a fit computed from the
    scaled numbers cannot land back within a tolerance of the original by chance."""
    f = rng.uniform(1.25, 2.0)
    return f if rng.random() < 0.5 else 1.0 / f


def _number(field: str) -> float | None:
    try:
        return float(field)
    except ValueError:
        return None


def _table(text: str) -> tuple[str | None, list[list[str]]] | None:
    """(delimiter, rows) where the text is a table: every record the same width, quoting as CSV
    has it (a quoted header field may hold the delimiter); None (delimiter) for whitespace."""
    for d in DELIMITERS:
        try:
            rows = [r for r in csv.reader(io.StringIO(text), delimiter=d) if r]
        except csv.Error:
            continue
        if len(rows) >= 3 and len({len(r) for r in rows}) == 1 and len(rows[0]) > 1:
            return d, rows
    rows = [line.split() for line in text.splitlines() if line.strip()]
    if len(rows) >= 3 and len({len(r) for r in rows}) == 1:
        return None, rows
    return None


def scramble_text(text: str, rng: random.Random, whole: bool = False) -> str | None:
    """The table with each column shuffled on its own (numbers also scaled); None when it is not a table."""
    found = _table(text)
    if found is None:
        return None
    delim, rows = found
    header = any(_number(f) is None for f in rows[0]) and all(_number(f) is not None for f in rows[1])
    body = rows[1:] if header else rows
    columns = [list(col) for col in zip(*body, strict=True)]
    for col in columns:
        rng.shuffle(col)
        values = [v for v in map(_number, col) if v is not None]
        if len(values) == len(col):  # every field a number
            k = factor(rng)
            if all(_INT.match(f.strip()) for f in col):
                col[:] = [str(round(v * k)) for v in values]
            else:
                col[:] = [repr(v * k) for v in values]
    out = ([rows[0]] if header else []) + [list(r) for r in zip(*columns, strict=True)][:kept(len(body), whole)]
    if delim is None:
        return "\n".join(" ".join(r) for r in out) + "\n"
    buf = io.StringIO()
    csv.writer(buf, delimiter=delim, lineterminator="\n").writerows(out)
    return buf.getvalue()


def kept(n: int, whole: bool = False) -> int:
    """How many of ``n`` rows a scrambled stand-in keeps (``whole``: all of them)."""
    return n if whole else min(n, max(KEEP_MIN, -(-n // SUBSAMPLE)))


def _scramble_array(a, rng: random.Random, whole: bool = False):
    import numpy as np

    gen = np.random.default_rng(rng.randrange(2**32))
    if a.dtype.kind not in "biuf" or a.size < 2:
        return a
    flat = a.reshape(-1).copy()
    gen.shuffle(flat)
    if a.dtype.kind == "f":
        flat = flat * factor(rng)
    return flat.reshape(a.shape).astype(a.dtype)[:kept(a.shape[0], whole)]


def scramble_bytes(name: str, raw: bytes, rng: random.Random, whole: bool = False) -> bytes | None:
    """The scrambled content of one file; None when its format is not one we know, and for a
    program (a loader shipped in a data folder is code, not data: scrambled, it would not run)."""
    suffix = Path(name).suffix.lower()
    if is_code(Path(name), raw[:2]):
        return None
    if suffix in (".npy", ".npz"):
        import numpy as np

        buf = io.BytesIO()
        try:
            if suffix == ".npy":
                np.save(buf, _scramble_array(np.load(io.BytesIO(raw), allow_pickle=False), rng, whole))
            else:
                with np.load(io.BytesIO(raw), allow_pickle=False) as z:
                    arrays = {k: _scramble_array(z[k], rng, whole) for k in z.files}
                np.savez(buf, **arrays)
        except (ValueError, OSError, EOFError):
            return None
        return buf.getvalue()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    out = scramble_text(text, rng, whole)
    if out is None:
        out = scramble_numbers(text, rng)
    return None if out is None else out.encode("utf-8")


_TOKEN = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")


def scramble_numbers(text: str, rng: random.Random) -> str | None:
    """Not a table: every number in the text scaled by one factor far from 1, times a jitter of
    its own within 10 % (integers stay integers). The factor moves whatever sums or averages them
    by at least 12 %; the jitter moves what one factor alone would leave as it was (a standardised
    fit, a ratio). None when there is no number to scale."""
    found = False
    k = factor(rng)

    def one(m: re.Match) -> str:
        nonlocal found
        found = True
        f = k * rng.uniform(1 / 1.1, 1.1)
        if _INT.match(m.group()):
            return str(round(int(m.group()) * f))
        return repr(float(m.group()) * f)

    out = _TOKEN.sub(one, text)
    return out if found else None


def scramble(workspace: Path, paths: list[str], seed: str, whole: bool = False) -> list[str]:
    """Scramble ``paths`` in a copy of the workspace, in place, never through a link; return
    those done (``whole``: every row kept)."""
    rng = random.Random(seed)
    return untrusted.treat_files(workspace, sorted(paths), lambda rel, raw: scramble_bytes(rel, raw, rng, whole),
                                 identity.current().owner, MAX_BYTES)


def scrambled_view(src: Path, dest: Path, seed: str, whole: bool = False) -> list[str]:
    """A copy of a material from the cache (harness-made, trusted) with every file of a known
    format scrambled (``whole``: every row kept); the others are hard links where the disk allows,
    so a large material costs only what was scrambled. Returns the relative paths scrambled."""
    import os
    import shutil

    rng = random.Random(f"{seed}:{src.name}")
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
            out = scramble_bytes(name, s_path.read_bytes(), rng, whole) if s_path.stat().st_size <= MAX_BYTES else None
            if out is not None:
                d_path.write_bytes(out)
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
