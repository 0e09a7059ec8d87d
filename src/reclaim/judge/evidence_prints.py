"""Where each number of a results.json was first printed: the first line of a recorded command's
output that shows it, in event order (stdout before stderr within a command), searched among the
agent's commands and among the re-execution's apart.

The rule, the judge's own (combine.value_in) made strict for short numbers: a numeric token on a
line shows a value when, parsed as a float, it equals the value; or when it is written with at
least three significant digits and the value rounds to it at the precision it is written with
(0.8712 and 8.712e-01 show 0.871234; 0.87, 0.9 and 1 do not). A token without a decimal point or
an exponent never shows a value that is not whole. A token inside a word or a version string
(x86, v3.11.2) is not a number. A value of fewer than three significant digits (0, 1, 0.5) is
matched exactly and marked ``short``: any log may print it by chance. Each stream is searched
from its start, at most SCAN_BYTES of it.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

from reclaim.judge.evidence_models import Cut, FirstPrint

SCAN_BYTES = 64 << 20
CHUNK = 4 << 20
LINE_CHARS = 300
MAX_VALUES = 24
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w]|\.\d)")


def significant(mantissa: str) -> int:
    return len(mantissa.lstrip("+-").replace(".", "").lstrip("0"))


def shows(token: str, value: float) -> bool:
    """Does the numeric ``token`` show ``value``, by the rule in this module's doc?"""
    if len(token) > 64:
        return False
    mantissa, _, exp = token.lower().partition("e")
    if "." not in mantissa and not exp and not value.is_integer():
        return False
    x = float(token)
    if x == value:
        return True
    if significant(mantissa) < 3:
        return False
    scale = (int(exp) if exp else 0) - (len(mantissa.split(".", 1)[1]) if "." in mantissa else 0)
    if scale > 300:
        return False
    return abs(x - value) <= 0.5 * 10.0 ** scale + 1e-12 * max(1.0, abs(value))


def _digits(value: float) -> str:
    """The significant digits of the shortest way to write ``value`` exactly: '81' for 8100.0."""
    mantissa = repr(abs(value)).split("e")[0]
    return mantissa.replace(".", "").strip("0")


def short(value: float) -> bool:
    return len(_digits(value)) < 3


def _heads(value: float) -> set[str]:
    """The first three significant digits of every way the value can be written: a cheap test a
    line must pass before its numbers are parsed."""
    out = {_digits(value)[:3] or "0"}  # written exactly: 3, 3.0, 0.5, 2.50
    for k in range(3, 18):  # rounded to k significant digits: 0.871, 0.8712, 0.900 for 0.8996
        out.add(f"{abs(value):.{k - 1}e}".replace(".", "")[:3])
    return out


def prefilter(values: list[float]) -> re.Pattern:
    heads = sorted({h for v in values for h in _heads(v)})
    return re.compile("|".join(r"\.?".join(h) for h in heads))


class Search:
    """First lines showing each of ``values`` (key -> value), fed text in order."""

    def __init__(self, values: dict[str, float]):
        self.pending = dict(values)
        self.found: dict[str, tuple[int, str]] = {}
        self.pre = prefilter(list(values.values())) if values else None

    def feed(self, text: str, first_line: int) -> None:
        """``text`` is whole lines; its first is line ``first_line`` of the stream."""
        pos, counted, line_no = 0, 0, first_line
        while self.pending and self.pre is not None and (m := self.pre.search(text, pos)):
            start = text.rfind("\n", 0, m.start()) + 1
            end = text.find("\n", m.end())
            end = len(text) if end < 0 else end
            line_no += text.count("\n", counted, start)
            counted = start
            line = text[start:end]
            tokens = [(t.group(), t.start()) for t in NUMBER.finditer(line)]
            for key, v in list(self.pending.items()):
                at = next((p for tok, p in tokens if shows(tok, v)), None)
                if at is not None:
                    lo = max(0, min(at - LINE_CHARS // 3, len(line) - LINE_CHARS))
                    self.found[key] = (line_no, line[lo:lo + LINE_CHARS])
                    del self.pending[key]
            pos = end + 1


def search_stream(path: Path | None, fallback: str, values: dict[str, float]) -> dict[str, tuple[int, str]]:
    """key -> (line number, line) of the first line of the stream at ``path`` showing each value
    (the trace's excerpt ``fallback`` when the harness's file is gone)."""
    s = Search(values)
    if not values:
        return {}
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC) if path is not None else None
    except OSError:
        fd = None
    if fd is None:
        s.feed(fallback, 1)
        return s.found
    try:
        rest, line_no, read = b"", 1, 0
        while s.pending and read < SCAN_BYTES:
            chunk = os.read(fd, min(CHUNK, SCAN_BYTES - read))
            read += len(chunk)
            buf = rest + chunk
            cut = buf.rfind(b"\n") + 1 if chunk and len(buf) < CHUNK * 2 else len(buf)
            body, rest = buf[:cut], buf[cut:]
            s.feed(body.decode("utf-8", "replace"), line_no)
            line_no += body.count(b"\n")
            if not chunk:
                break
        if rest and s.pending:
            s.feed(rest.decode("utf-8", "replace"), line_no)
    finally:
        os.close(fd)
    return s.found


def numbers(data: dict | None, limit: int = MAX_VALUES) -> tuple[dict[str, float], int]:
    """The finite numbers of a results.json, by key path ('a.b', 'a[0]'), at most ``limit``; and
    how many there were."""
    out: dict[str, float] = {}
    total = 0

    def walk(node, key: str, depth: int) -> None:
        nonlocal total
        if depth > 32:
            return
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, f"{key}.{k}" if key else str(k), depth + 1)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{key}[{i}]", depth + 1)
        elif isinstance(node, (int, float)) and not isinstance(node, bool):
            try:
                x = float(node)
            except OverflowError:
                return
            if math.isfinite(x):
                total += 1
                if len(out) < limit:
                    out[key[:200]] = x

    walk(data, "", 0)
    return out, total


def first_prints(trial_dir: Path, finished: list, results: dict[str, dict[str, float]],
                 writers: dict[str, int | None]) -> tuple[list[FirstPrint], dict[int, list[str]]]:
    """A row per (results.json, number, phase); and per event, the lines cited (for full_text)."""
    rows: list[FirstPrint] = []
    cited: dict[int, list[str]] = {}
    for phase in ("agent", "reexec"):
        values = {f"{which}\0{key}": v for which, got in results.items() for key, v in got.items()}
        hits: dict[str, tuple[int, str, int, str]] = {}
        for e in (e for e in finished if e.phase == phase):
            for stream, rel, excerpt in (("stdout", e.stdout_file, e.stdout), ("stderr", e.stderr_file, e.stderr)):
                pending = {k: v for k, v in values.items() if k not in hits}
                if not pending:
                    break
                path = trial_dir / rel if rel else None
                for k, (line_no, line) in search_stream(path, excerpt, pending).items():
                    hits[k] = (e.id, stream, line_no, line)
                    cited.setdefault(e.id, []).append(line)
        writer = writers.get(phase)
        for k, v in values.items():
            which, key = k.split("\0", 1)
            hit = hits.get(k)
            row = FirstPrint(results=which, key=key, value=v, phase=phase, writer=writer, short=short(v),
                             when="never" if hit is None else "unknown" if writer is None else
                             "before" if hit[0] < writer else "with" if hit[0] == writer else "after")
            if hit is not None:
                row.event_id, row.stream, row.line, row.text = hit
            rows.append(row)
    return rows, cited


def value_cuts(totals: dict[str, int]) -> list[Cut]:
    return [Cut(part=f"numbers of the {which} results.json", unit="numbers", total=n, cut=n - MAX_VALUES,
                how=f"the first {MAX_VALUES} traced to their first print")
            for which, n in totals.items() if n > MAX_VALUES]
