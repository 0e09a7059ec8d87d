"""A release without its answers: every place a re-run could read the paper's number shows another.

A README that prints the result, a notebook's saved output cell, a results table, the paper
itself: a ``reproduce.sh`` that copies the number from there computes nothing. In every re-run
(the counting one included) the texts show each target value as another one, chosen per trial
on the side a faithful run misses, with as many digits, in the forms the number is written
(``0.8731``, ``0.873``, ``87.3`` for a fraction written as a percent):

- ``paper.md`` and ``TASK.md``: written again from the harness's own copies, numbers altered
  (a program may read its settings from the paper: they are not targets and stay);
- the release's documents (``.md``, ``.rst``, ``.txt``, ``.tex``, ``.html``, ``.log``, a
  ``README``), its results files (tables and JSON under a folder or file named for results,
  logs, outputs), Python comments: numbers altered;
- notebooks: saved outputs stripped (also where no target can be altered: a metric's bound
  printed in an output cell is read as easily as any other), numbers in their markdown altered.

A program that copies the number gives the shown one, which the judge recognises
(``ReexecRecord.answers``): it is disqualified, as copying is. What is not altered: targets at a
metric's bound or with one significant digit (0 errors, recall 1, an accuracy of 0.9: replacing
every such token would change the paper's settings; those tasks need a perturbation, see
judge.dependence.at_bound), numbers in code or data a program computes with (meaning kept), and
a value written in a form not listed (a fraction of 1,000, words).
"""

from __future__ import annotations

import io
import json
import math
import random
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.judge.criteria import acceptance
from reclaim.materials import PAPER_MD, TASK_MD
from reclaim.spec import Direction, TaskSpec
from reclaim.store import TEXTS

DOCUMENTS = {".md", ".markdown", ".rst", ".txt", ".tex", ".html", ".htm", ".log", ".out", ".org", ".adoc"}
TABLES = {".csv", ".tsv", ".json", ".yaml", ".yml", ".txt", ".log", ".out"}
RESULTS = re.compile(r"result|log|output|eval|score|metric|report|table", re.I)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")
MIN_DIGITS = 2


def _digits(token: str) -> int:
    """Significant digits of a number token ('0.0870' -> 3)."""
    return len(token.replace(".", "").lstrip("0")) or 1


@dataclass
class Answers:
    """Each target value -> the value the re-runs' texts show in its place."""

    shown: dict[str, tuple[float, float]] = field(default_factory=dict)
    """metric -> (the paper's value, the value shown instead)."""
    edges: list[tuple[float, float]] = field(default_factory=list)
    """The numbers that follow from a target (its acceptance's edges, stated in TASK.md: 'above
    0.941 is implausible' gives the target away) -> the same edges around the value shown."""

    @classmethod
    def for_task(cls, spec: TaskSpec, rng: random.Random) -> Answers:
        out, edges = {}, []
        for m in spec.metrics():
            v = m.value
            if not isinstance(v, (int, float)) or isinstance(v, bool) or v == 0:
                continue
            if _digits(f"{abs(v):g}") < MIN_DIGITS or v in (getattr(m, "bounds", None) or ()):
                continue
            acc = acceptance(m)
            gap = max(3 * acc.tol, 0.2 * abs(v)) * rng.uniform(1.0, 1.5)
            losing = {Direction.higher_is_better: -1, Direction.lower_is_better: 1}.get(m.direction,
                                                                                         rng.choice((-1, 1)))
            alt = v + losing * gap
            if 0 < v < 1 and not 0 < alt < 1:  # a fraction stays one
                alt = v * rng.uniform(0.55, 0.8) if losing < 0 else v + (1 - v) * rng.uniform(0.3, 0.6)
            if acc.accepts(alt):
                continue
            out[m.name] = (float(v), float(alt))
            edges += [(x, x - v + alt) for x in (acc.low, acc.high, acc.plausible_low, acc.plausible_high)
                      if math.isfinite(x) and x != v]
        return cls(out, edges)

    def text(self, text: str) -> str | None:
        """``text`` with every written form of a target replaced; None when it held none."""
        hits = 0

        def one(m: re.Match) -> str:
            nonlocal hits
            tok = m.group()
            if _digits(tok) < MIN_DIGITS:
                return tok
            x = float(tok)
            places = len(tok.split(".", 1)[1]) if "." in tok else 0
            for v, alt in [*self.shown.values(), *self.edges]:
                for scale in (1, 100) if 0 < abs(v) < 1 else (1,):
                    if round(v * scale, places) == x:
                        hits += 1
                        new = f"{alt * scale:.{places}f}"
                        if new == tok:  # the same at that precision: one unit off on the losing side
                            step = 10 ** -places * (1 if alt > v else -1)
                            new = f"{alt * scale + step:.{places}f}"
                        return new
            return tok

        out = _NUMBER.sub(one, text)
        return out if hits else None

    def file(self, rel: str, raw: bytes) -> bytes | None:
        """A released file with its answers hidden; None when it is not a text a number is read
        from, or held none."""
        path = Path(rel)
        suffix = path.suffix.lower()
        if suffix != ".ipynb" and not self.shown:  # a notebook's outputs go whatever the targets are
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return None
        if suffix == ".ipynb":
            return _notebook(self, text)
        if suffix == ".py":
            return _comments(self, text)
        results = any(RESULTS.search(p) for p in path.parts)
        if suffix in DOCUMENTS or path.name.upper().startswith("README") or (results and suffix in TABLES):
            out = self.text(text)
            return None if out is None else out.encode("utf-8")
        return None


def _notebook(answers: Answers, text: str) -> bytes | None:
    """The notebook without its saved outputs, numbers in its markdown altered."""
    try:
        nb = json.loads(text)
    except (ValueError, RecursionError):
        return None
    cells = nb.get("cells") if isinstance(nb, dict) else None
    if not isinstance(cells, list):
        return None
    changed = False
    for cell in cells:
        if not isinstance(cell, dict):
            return None
        if cell.get("cell_type") == "code":
            changed |= bool(cell.get("outputs")) or cell.get("execution_count") is not None
            cell["outputs"], cell["execution_count"] = [], None
        elif cell.get("cell_type") == "markdown":
            src = cell.get("source", "")
            joined = "".join(src) if isinstance(src, list) else src
            if isinstance(joined, str) and (new := answers.text(joined)) is not None:
                cell["source"] = new.splitlines(keepends=True) if isinstance(src, list) else new
                changed = True
    return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode("utf-8") if changed else None


def _comments(answers: Answers, text: str) -> bytes | None:
    """A Python program with the answers in its comments altered (its code as it was)."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    lines = text.splitlines(keepends=True)
    hits = 0
    for tok in reversed(tokens):  # from the end, so earlier positions stay where they were
        if tok.type != tokenize.COMMENT or tok.start[0] != tok.end[0]:
            continue
        new = answers.text(tok.string)
        if new is None:
            continue
        row, (c0, c1) = tok.start[0] - 1, (tok.start[1], tok.end[1])
        lines[row] = lines[row][:c0] + new + lines[row][c1:]
        hits += 1
    return "".join(lines).encode("utf-8") if hits else None


def shown_texts(trial_dir: Path, answers: Answers) -> dict[str, bytes]:
    """paper.md and TASK.md as every re-run shows them: the harness's own copies (store.TEXTS),
    answers hidden; none where the trial kept no copies (recorded before they were kept)."""
    out = {}
    folder = trial_dir / TEXTS
    for name in (PAPER_MD, TASK_MD):
        try:
            raw = (folder / name).read_bytes()
        except OSError:
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            out[name] = raw
            continue
        new = answers.text(text)
        out[name] = raw if new is None else new.encode("utf-8")
    return out
