"""Cutting long outputs down to what a judge needs: head, tail, and the lines that matter."""

from __future__ import annotations

import re

_NUMBER = re.compile(r"[-+]?(?:\d+\.\d+|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_ERROR = re.compile(r"Traceback|Error|error:|Exception|FAILED|fatal|Killed|No such file", re.I)
MAX_LINE = 400


def chars_to_tokens(n_chars: int) -> int:
    """A rough token count for English text and logs: about four characters a token."""
    return (n_chars + 3) // 4


class Relevance:
    """Decides which lines of a log a judge must see: the metric, the target's neighbourhood, errors."""

    def __init__(self, metric: str, target: float, tol: float):
        self.metric = metric.lower()
        self.target = target
        self.near = max(5 * tol, 0.05 * abs(target), 1e-9)

    def __call__(self, line: str) -> bool:
        if self.metric in line.lower() or _ERROR.search(line):
            return True
        for m in _NUMBER.finditer(line):
            try:
                if abs(float(m.group()) - self.target) <= self.near:
                    return True
            except ValueError:
                continue
        return False


def compress(text: str, budget: int, relevant: Relevance, head: int = 20, tail: int = 40) -> tuple[str, int]:
    """Fit ``text`` into ``budget`` characters; return (text, number of lines cut).

    Keeps the first ``head`` and last ``tail`` lines (more where the budget allows) and every
    relevant line in between, each at most MAX_LINE characters, and marks every gap with the
    count of lines cut; relevant lines are dropped from the middle outwards if still too long.
    """
    if len(text) <= budget:
        return text, 0
    lines = text.splitlines()
    # a generous budget buys more context: up to a quarter of it for the head, half for the tail
    head = max(head, _fit(lines, budget // 4))
    tail = max(tail, _fit(lines[::-1], budget // 2))
    keep = set(range(min(head, len(lines)))) | set(range(max(0, len(lines) - tail), len(lines)))
    keep |= {i for i, line in enumerate(lines) if i not in keep and relevant(line)}
    while True:
        out, cut = _assemble(lines, sorted(keep))
        if len(out) <= budget or not keep:
            return out, cut
        # drop from the middle outwards: head and tail are the last to go
        middle = sorted(keep, key=lambda i: min(i, len(lines) - 1 - i))
        for i in middle[-max(1, len(keep) // 4):]:
            keep.discard(i)


def _fit(lines: list[str], chars: int) -> int:
    """How many of ``lines``, from the first, fit in ``chars``."""
    used = 0
    for n, line in enumerate(lines):
        used += min(len(line), MAX_LINE) + 1
        if used > chars:
            return n
    return len(lines)


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
