"""Cutting long outputs down to what a judge needs: head, tail, and the lines that matter."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_ERROR = re.compile(r"Traceback|Error|error:|Exception|FAILED|fatal|Killed|No such file", re.I)
# in a program: a constant of three or more significant digits, and where results are written
_CONSTANT = re.compile(r"(?<![\w.])[-+]?(?:[1-9]\d*\.\d*[1-9]|0?\.0*[1-9]\d{2,}|[1-9]\d{2,})")
_WRITES = re.compile(r"results\.json|json\.dump|\.write\(|open\(|print\(|echo |printf |>", re.I)
MAX_LINE = 400


def chars_to_tokens(n_chars: int) -> int:
    """A rough token count for English text and logs: about four characters a token."""
    return (n_chars + 3) // 4


class Relevance:
    """Decides which lines of a log a judge must see: the metric, the target's neighbourhood, errors.

    ``names`` are further words to keep (every metric's name, the programs' names), ``numbers``
    further (value, distance) pairs, ``also`` any further test of a line."""

    def __init__(self, metric: str, target: float, tol: float, *, names: Iterable[str] = (),
                 numbers: Iterable[tuple[float, float]] = (), also: Callable[[str], bool] | None = None):
        self.metric = metric.lower()
        self.target = target
        self.near = max(5 * tol, 0.05 * abs(target), 1e-9)
        self.names = sorted({n.lower() for n in names if n} - {self.metric})
        self.numbers = [(target, self.near), *numbers]
        self.also = also
        self._words = [w for w in (self.metric, *self.names) if w]
        self._spans = sorted({(v - near, v + near) for v, near in self.numbers})

    def __call__(self, line: str) -> bool:
        low = line.lower()
        if any(w in low for w in self._words) or _ERROR.search(line):
            return True
        spans = self._spans
        for token in _NUMBER.findall(line):
            x = float(token)
            for lo, hi in spans:
                if lo <= x <= hi:
                    return True
        return self.also is not None and self.also(line)


class ProgramRelevance(Relevance):
    """For a program's text: also every constant of three or more significant digits, every line
    that writes or prints, and in a diff every changed line."""

    def __call__(self, line: str) -> bool:
        if line.startswith(("+", "-", "@@")) and not line.startswith(("+++", "---")):
            return True
        return bool(_CONSTANT.search(line) or _WRITES.search(line)) or super().__call__(line)


def compress(text: str, budget: int, relevant: Callable[[str], bool], head: int = 20, tail: int = 40,
             pinned: Collection[str] = (), relevant_first: bool = False) -> tuple[str, int]:
    """Fit ``text`` into ``budget`` characters; return (text, number of lines cut).

    Keeps the first ``head`` and last ``tail`` lines (more where the budget allows), every
    relevant line in between and the first line equal to each of ``pinned``, each at most
    MAX_LINE characters, and marks every gap with the count of lines cut; relevant lines are
    dropped from the middle outwards if still too long, pinned ones last (``relevant_first``:
    the plain lines of the head and tail go before any relevant one, as a program's do).
    """
    if len(text) <= budget:
        return text, 0
    lines = text.splitlines()
    memo: dict[str, bool] = {}  # a log or a program repeats its lines: each is judged once

    def judged(i: int) -> bool:
        line = lines[i]
        if line not in memo:
            memo[line] = relevant(line)
        return memo[line]

    kept = select([min(len(x), MAX_LINE) for x in lines], budget, judged, head, tail,
                  pinned=_first_equal(lines, pinned), render=lambda keep: _assemble(lines, keep),
                  relevant_first=relevant_first)
    return _assemble(lines, kept)


def select(sizes: list[int], budget: int, relevant: Callable[[int], bool], head: int = 20, tail: int = 40,
           pinned: Collection[int] = (), render: Callable[[list[int]], tuple[str, int]] | None = None,
           relevant_first: bool = False) -> list[int]:
    """Which of ``len(sizes)`` lines (rows) to keep within ``budget`` characters: the head, the
    tail, the relevant ones and the pinned ones, dropping from the middle outwards until the kept
    lines (and a gap marker of about 24 characters each, unless ``render`` measures exactly) fit."""
    n = len(sizes)
    # a generous budget buys more context: up to a quarter of it for the head, half for the tail
    head = max(head, _fit(sizes, budget // 4))
    tail = max(tail, _fit(sizes[::-1], budget // 2))
    keep = set(range(min(head, n))) | set(range(max(0, n - tail), n))
    chosen = {i for i in range(n) if relevant(i)} if relevant_first else set()
    keep |= chosen or {i for i in range(n) if i not in keep and relevant(i)}
    pins = set(pinned) | chosen
    keep |= pins
    while True:
        order = sorted(keep)
        size = len(render(order)[0]) if render else _measure(sizes, order)
        if size <= budget or not keep:
            return order
        # drop from the middle outwards: head and tail are the last to go, pinned lines after them
        first = sorted(keep, key=lambda i: (i in pins, -min(i, n - 1 - i), i))
        for i in first[:max(1, len(keep) // 4)]:
            keep.discard(i)


def _measure(sizes: list[int], kept: list[int]) -> int:
    gaps = sum(1 for a, b in zip([-1, *kept], [*kept, len(sizes)], strict=True) if b > a + 1)
    return sum(sizes[i] + 1 for i in kept) + 24 * gaps


def _first_equal(lines: list[str], pinned: Collection[str]) -> set[int]:
    want, out = set(pinned), set[int]()
    if not want:
        return out
    for i, line in enumerate(lines):
        if line in want:
            out.add(i)
            want.discard(line)
    return out


def _fit(sizes: list[int], chars: int) -> int:
    """How many of ``sizes``, from the first, fit in ``chars``."""
    used = 0
    for n, size in enumerate(sizes):
        used += size + 1
        if used > chars:
            return n
    return len(sizes)


def _assemble(lines: list[str], kept: list[int]) -> tuple[str, int]:
    out, prev, cut = [], -1, 0
    for i in kept:
        if i > prev + 1:
            out.append(f"[... {i - prev - 1} lines cut ...]")
            cut += i - prev - 1
        line = lines[i]
        out.append(line if len(line) <= MAX_LINE else line[:MAX_LINE] + f" [... {len(line) - MAX_LINE} chars cut]")
        prev = i
    if prev < len(lines) - 1:
        out.append(f"[... {len(lines) - 1 - prev} lines cut ...]")
        cut += len(lines) - 1 - prev
    return "\n".join(out), cut
