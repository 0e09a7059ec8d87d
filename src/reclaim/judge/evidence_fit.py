"""Fitting a bundle into its token budget, with a record of every cut.

Each part that can shrink (a command's output, a program's text, a list of logged commands, the
manifest, the notes, the agent's own words) gets a share of what the fixed parts leave, by
weighted water-filling: a part that needs less than its share keeps all of it, the rest is split
among the others by weight. Each is cut to its share by compress.py's machinery and reports how
many lines or rows it lost; the shares shrink until the rendered bundle fits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise

from reclaim.judge.compress import chars_to_tokens, compress, select
from reclaim.judge.evidence_models import Cut

FLOOR = 400  # characters any part keeps while the budget allows it


@dataclass
class Part:
    name: str
    unit: str
    size: int
    """Characters it takes whole."""
    apply: Callable[[int | None], tuple[int, int]]
    """Cut to a share of characters (None: whole); return (units in all, units cut)."""
    weight: float = 1.0
    how: str = ""


def text_part(name: str, raw: str, put: Callable[[str], None], relevant: Callable[[str], bool],
              how: str, weight: float = 1.0, pinned: tuple[str, ...] = (), relevant_first: bool = False) -> Part:
    n = len(raw.splitlines())

    def apply(share: int | None) -> tuple[int, int]:
        if share is None or len(raw) <= share:
            put(raw)
            return n, 0
        if share <= 0:
            put(f"[... all {n} lines cut ...]")
            return n, n
        text, cut = compress(raw, share, relevant, pinned=pinned, relevant_first=relevant_first)
        put(text)
        return n, cut

    return Part(name, "lines", len(raw), apply, weight, how)


def rows_part(name: str, rows: list, sizes: list[int], put: Callable[[list, list[int]], None],
              relevant: Callable[[int], bool], how: str, weight: float = 1.0) -> Part:
    """A list cut by rows: ``put`` gets the kept rows and, for each, how many were cut before it."""
    def apply(share: int | None) -> tuple[int, int]:
        if share is None or sum(sizes) + len(sizes) <= share:
            put(rows, [0] * len(rows))
            return len(rows), 0
        kept = select(sizes, share, relevant, head=10, tail=10) if share > 0 else []
        gaps = [b - a - 1 for a, b in pairwise([-1, *kept])]
        put([rows[i] for i in kept], gaps)
        return len(rows), len(rows) - len(kept)

    return Part(name, "rows", sum(sizes) + len(sizes), apply, weight, how)


def shares(parts: list[Part], avail: int, floor: int) -> list[int]:
    """Each part's characters: a floor first, then the rest by weighted water level."""
    base = [min(p.size, floor) for p in parts]
    rest = avail - sum(base)
    if rest <= 0:
        return base
    need = [(p.size - b, p.weight, i) for i, (p, b) in enumerate(zip(parts, base, strict=True)) if p.size > b]
    need.sort(key=lambda x: (x[0] / x[1], x[2]))
    weights = sum(w for _, w, _ in need)
    out = list(base)
    for n, w, i in need:
        level = rest / weights
        give = n if n <= w * level else int(w * level)
        out[i] += give
        rest -= give
        weights -= w
    return out


def fit(parts: list[Part], max_tokens: int, render: Callable[[], str],
        record: Callable[[list[Cut]], None], other: list[Cut]) -> None:
    """Cut ``parts`` until ``render()`` is at most ``max_tokens``; ``record`` gets the cuts made
    (after ``other``, cuts made before) each time, so the bundle always shows its own."""
    budget = 4 * max_tokens

    def cuts(results: list[tuple[int, int]]) -> list[Cut]:
        return other + [Cut(part=p.name, unit=p.unit, total=t, cut=c, how=p.how)
                        for p, (t, c) in zip(parts, results, strict=True) if c]

    results = [p.apply(0) for p in parts]
    record(cuts(results))
    fixed = len(render())
    if fixed + sum(p.size for p in parts) <= budget:
        results = [p.apply(None) for p in parts]
        record(cuts(results))
        if len(render()) <= budget:
            return
    avail, floor = budget - fixed, FLOOR
    for _ in range(16):
        results = [p.apply(s) for p, s in zip(parts, shares(parts, avail, floor), strict=True)]
        record(cuts(results))
        over = len(render()) - budget
        if over <= 0:
            return
        if sum(min(p.size, floor) for p in parts) >= avail:
            if floor == 0:
                break
            floor //= 2
        else:
            avail -= over + 16
    over = chars_to_tokens(len(render())) - max_tokens
    if over > 0:
        record(cuts(results) + [Cut(part="the bundle", unit="tokens", total=chars_to_tokens(fixed), cut=0,
                                    how=f"still {over} tokens over the budget with every part cut to nothing")])
