"""Target candidates from a paper's text: its results tables parsed, the proposed method's row
found (marked as ours, or named as the title names the method), else the abstract's first number
beside a metric word; a headline number chosen by a written rule, checked to stand in the paper where it is said
to, with criteria and a budget that follow stated rules too. A person confirms them in review."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

HIGHER = re.compile(r"acc|f1|auc|bleu|rouge|r2|r\^2|coverage|precision|recall|map\b|ndcg|iou|dice|score|"
                    r"reward|return|win|success|spearman|pearson|kappa|tpr|ari|nmi", re.I)
LOWER = re.compile(r"loss|err|rmse|mae|mse|perplex|ppl|fid|regret|shd|fdr|fpr|latency|time|wer|cer|nll|kl\b|"
                   r"distance|bpd|ece", re.I)
OURS = re.compile(r"\b(ours|our method|proposed|this work|\(ours\))\b", re.I)
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
GPU_HOURS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:k\s*)?gpu[- ]hours?", re.I)
GPUS_FOR = re.compile(r"(\d+)\s*(?:x\s*|×\s*)?(?:nvidia\s+)?(?:a100|h100|v100|rtx\s*\d+|gpus?)\b[^.\n]{0,40}?"
                      r"(?:for|in|over|takes?|took)\s+(?:about\s+|roughly\s+|~\s*)?(\d+(?:\.\d+)?)\s*(hours?|h\b|days?|minutes?)",
                      re.I)
MARGIN = 1.5
DEFAULT_GPU_HOURS = 1.0
CRITERIA_RULE = ("a percentage: abs_tol 1 point; a fraction in [0, 1]: abs_tol 0.01; a count: abs_tol 1; "
                 "anything else: rel_tol 0.05")
BUDGET_RULE = (f"the paper's stated compute (GPUs x time, or GPU-hours) x {MARGIN}; where it states none, "
               f"{DEFAULT_GPU_HOURS} GPU-hour on 1 GPU, to be set by hand")


class Table(BaseModel):
    number: int
    caption: str = ""
    header: list[str]
    rows: list[list[str]]


class Candidate(BaseModel):
    claim: str
    metric: str
    value: float
    direction: str
    where: str
    found: bool = Field(description="The value stands in the paper at that place (re-read, not assumed).")
    criteria: dict
    criteria_rule: str = CRITERIA_RULE
    rule: str = Field("the first results table's row marked as the paper's own method, its first metric column "
                      "whose direction is known")


class BudgetGuess(BaseModel):
    gpu_hours: float
    gpus: int
    wall_minutes: float
    stated: str = Field("", description="The sentence the estimate rests on; empty when the paper states none.")
    rule: str = BUDGET_RULE


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def tables(text: str) -> list[Table]:
    """Pipe tables (as papers' Markdown and extracted PDFs keep them), numbered in order, with the
    caption line just above when it names one ('Table 2: ...')."""
    out: list[Table] = []
    lines, i = text.splitlines(), 0
    while i < len(lines):
        if lines[i].lstrip().startswith("|") and i + 1 < len(lines) and re.match(r"^\s*\|?\s*:?-{2,}", lines[i + 1]):
            header = _cells(lines[i])
            rows, j = [], i + 2
            while j < len(lines) and lines[j].lstrip().startswith("|"):
                rows.append(_cells(lines[j]))
                j += 1
            above = next((ln.strip() for ln in reversed(lines[max(0, i - 3):i]) if ln.strip()), "")
            named = re.match(r"^(?:table|tab\.)\s*(\d+)", above, re.I)
            out.append(Table(number=int(named.group(1)) if named else len(out) + 1,
                             caption=above if named else "", header=header, rows=rows))
            i = j
        else:
            i += 1
    return out


def direction(metric: str) -> str | None:
    """higher_is_better or lower_is_better from the metric's name; None where it does not say."""
    if LOWER.search(metric):
        return "lower_is_better"
    if HIGHER.search(metric):
        return "higher_is_better"
    return None


def criteria_for(value: float, cell: str, header: str = "") -> dict:
    if "%" in cell or "%" in header or "percent" in header.lower():
        return {"abs_tol": 1.0}
    if 0 <= abs(value) <= 1 and "." in cell:
        return {"abs_tol": 0.01}
    if float(value).is_integer() and "." not in cell:
        return {"abs_tol": 1}
    return {"rel_tol": 0.05}


GAIN = re.compile(r"\b(reduc\w*|improv\w*|speed-?up|faster|gains?|increas\w*|outperform\w*|fewer|less)\b", re.I)
SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z$])")
NOT_A_RESULT = re.compile(r"(?:table|figure|fig\.|section|sec\.|appendix|eq\.|equation|v)\s*$", re.I)


def method_name(title: str) -> str | None:
    """The method a title names before its colon ('GRAVER: Generative ...' -> 'GRAVER')."""
    head = title.split(":", 1)[0].strip() if ":" in title else ""
    return head if head and len(head.split()) <= 3 else None


def _own_row(rows: list[list[str]], title: str) -> list[str] | None:
    """The row of the paper's own method: marked as ours, or named as the title names it."""
    name = method_name(title)
    for r in rows:
        if r and (OURS.search(r[0]) or (name and r[0].strip().rstrip("*+† ").lower() == name.lower())):
            return r
    return None


def abstract_of(text: str) -> str:
    m = re.search(r"^## Abstract\s*\n(.*?)(?=^#|\Z)", text, re.M | re.S)
    return " ".join(m.group(1).split()) if m else ""


def sentences(abstract: str) -> list[str]:
    return [s for s in SENTENCE.split(abstract) if s.strip()]


def from_abstract(text: str, title: str = "") -> Candidate | None:
    """The first number the abstract prints beside a metric word or a gain ('73.7% hit@1', 'reduce the
    noise by 20%'): many papers' headline, and the only one a reader of the abstract alone can see."""
    for i, sent in enumerate(sentences(abstract_of(text)), start=1):
        for m in NUMBER.finditer(sent):
            raw = m.group(0)
            before, after = sent[:m.start()], sent[m.end():]
            value = float(raw)
            if NOT_A_RESULT.search(before) or (value.is_integer() and 1900 <= value <= 2100) \
                    or re.match(r"^[\w.]*[a-zA-Z(]", after) or re.search(r"[\w^_(]$", before):
                continue  # a year, a citation, a name (GPT-4), a bound O(n^2), a reference to a table
            near = before[-60:] + after[:40]
            pct = after.lstrip().startswith("%")
            d = "higher_is_better" if GAIN.search(near) else direction(near)
            if d is None:
                continue
            word = (GAIN.search(near) or HIGHER.search(near) or LOWER.search(near))
            metric = metric_name((word.group(0) if word else "value") + ("_pct" if pct else ""))
            where = f"abstract, sentence {i}"
            c = Candidate(claim=sent.strip(), metric=metric, value=value, direction=d, where=where, found=False,
                          criteria=criteria_for(value, raw + ("%" if pct else "")),
                          rule="no results table names the paper's own method: the abstract's first number beside "
                               "a metric word or a gain")
            c.found = stands(c, text)
            return c
    return None


def headline(text: str, title: str = "") -> Candidate | None:
    """The rule's headline number: from the first results table with a row for the paper's own method
    (marked as ours, or named as the title names it), else from the abstract; None where neither has one."""
    for t in tables(text):
        row = _own_row(t.rows, title)
        if row is None:
            continue
        for col, name in enumerate(t.header[1:], start=1):
            d = direction(name)
            cell = row[col] if col < len(row) else ""
            m = NUMBER.search(cell.replace(",", ""))
            if d is None or m is None:
                continue
            value = float(m.group(0))
            where = f"Table {t.number}, row '{row[0]}', column '{name}'"
            c = Candidate(claim=f"{title or 'The method'} reaches {name} {m.group(0)} ({where}).",
                          metric=metric_name(name), value=value, direction=d, where=where, found=False,
                          criteria=criteria_for(value, cell, name))
            c.found = stands(c, text)
            return c
    return from_abstract(text, title)


WHERE = re.compile(r"^Table (\d+), row '(.*)', column '(.*)'$")


def stands(c: Candidate, text: str) -> bool:
    """Does the candidate's value stand in the paper where it says ("Table N, row 'R', column 'C'")?
    Read again from the text, so a proposal from anywhere (a model's included) is checked, not trusted."""
    if a := re.match(r"^abstract, sentence (\d+)$", c.where):
        sent = sentences(abstract_of(text))
        n = int(a.group(1))
        return 0 < n <= len(sent) and any(abs(float(x) - c.value) <= 1e-9 * max(1.0, abs(c.value))
                                          for x in NUMBER.findall(sent[n - 1].replace(",", "")))
    m = WHERE.match(c.where)
    if m is None:
        return False
    n, row_name, col_name = int(m.group(1)), m.group(2), m.group(3)
    t = next((t for t in tables(text) if t.number == n), None)
    if t is None or col_name not in t.header:
        return False
    col = t.header.index(col_name)
    for r in t.rows:
        if r and r[0] == row_name and col < len(r):
            return any(abs(float(x) - c.value) <= 1e-9 * max(1.0, abs(c.value))
                       for x in NUMBER.findall(r[col].replace(",", "")))
    return False


def metric_name(name: str) -> str:
    """A column header as a results.json key: 'Accuracy (%)' -> 'accuracy'."""
    s = re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")
    return s or "metric"


def budget(text: str) -> BudgetGuess:
    """The compute the paper states, with a margin; a default, said to be one, where it states none."""
    if m := GPUS_FOR.search(text):
        gpus, amount, unit = int(m.group(1)), float(m.group(2)), m.group(3).lower()
        hours = amount * (24 if unit.startswith("day") else 1 / 60 if unit.startswith("min") else 1)
        return BudgetGuess(gpu_hours=round(gpus * hours * MARGIN, 2), gpus=gpus,
                           wall_minutes=round(hours * 60 * MARGIN), stated=" ".join(m.group(0).split()))
    if m := GPU_HOURS.search(text):
        total = float(m.group(1)) * (1000 if "k" in m.group(0).lower().split("gpu")[0] else 1)
        return BudgetGuess(gpu_hours=round(total * MARGIN, 2), gpus=1, wall_minutes=round(total * 60 * MARGIN),
                           stated=" ".join(m.group(0).split()))
    return BudgetGuess(gpu_hours=DEFAULT_GPU_HOURS, gpus=1, wall_minutes=60)
