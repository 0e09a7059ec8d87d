"""From curated papers to a suite draft in the task format, every task `review: pending` with the
checklist a person works through (`reclaim curate review`), and CURATION.md: what was sampled,
by which seed, what was left out and why.

Sampling is stratified by level, research area (first keyword) and budget band, with a fixed seed,
so the same cache and seed give the same draft; dates (published, first arXiv version) are kept
so a user can filter by a model's training cut-off."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from pathlib import Path

import yaml
from pydantic import BaseModel

from reclaim.curate.released import LEVEL_RULE, Release
from reclaim.curate.sources import Paper
from reclaim.curate.targets import BudgetGuess, Candidate


class Curated(BaseModel):
    paper: Paper
    text: str
    release: Release
    candidate: Candidate | None
    budget: BudgetGuess
    proposal: str = ""
    """What an optional model proposed, and whether code found it where it said."""

    @property
    def area(self) -> str:
        return (self.paper.keywords[0] if self.paper.keywords else "unknown").lower()

    @property
    def band(self) -> str:
        h = self.budget.gpu_hours
        return "small" if h <= 8 else "medium" if h <= 200 else "large"


def slug(title: str, taken: set[str]) -> str:
    base = "-".join(re.findall(r"[a-z0-9]+", title.lower())[:6]) or "paper"
    out, n = base, 2
    while out in taken:
        out, n = f"{base}-{n}", n + 1
    taken.add(out)
    return out


def sample(items: list[Curated], n: int, seed: int) -> list[Curated]:
    """n items, stratified by (level, area, budget band): strata take turns, each shuffled by the seed."""
    rng = random.Random(seed)
    strata: dict[tuple, list[Curated]] = defaultdict(list)
    for c in items:
        strata[(c.release.level, c.area, c.band)].append(c)
    order = sorted(strata)
    rng.shuffle(order)
    for key in order:
        rng.shuffle(strata[key])
    out: list[Curated] = []
    while len(out) < n and any(strata[k] for k in order):
        for key in order:
            if strata[key] and len(out) < n:
                out.append(strata[key].pop())
    return out


def _materials(c: Curated) -> dict:
    m: dict = {}
    code = next(iter(c.release.released("code")), None)
    if code is not None and code.pin:
        m["code"] = {"git": {"url": f"https://{code.link.host}/{code.link.ref}", "commit": code.pin}}
    for kind in ("data", "weights"):
        v = next((v for v in c.release.released(kind) if v.link.host == "huggingface.co" and v.pin), None)
        if v is not None:
            m[kind] = {"hub": {"repo": v.link.ref, "revision": v.pin, "kind": "dataset" if kind == "data" else "model"}}
    if "code" in m and "data" not in m:
        m["data"] = "generated"  # to confirm in review: the code makes its data, or the data is to be pinned
    return m


def task_yaml(c: Curated, task_id: str, year: int) -> dict:
    p, cand, b = c.paper, c.candidate, c.budget
    assert cand is not None  # a paper without a headline claim is left out before drafting
    ids = {k: v for k, v in (("openreview", p.id if p.source == "openreview" else None), ("arxiv", p.arxiv)) if v}
    spec = {
        "id": task_id,
        "paper": {"title": p.title, "venue": p.venue or p.source, "year": year, "authors": p.authors, "ids": ids,
                  "urls": [u for u in (p.url, p.pdf) if u], "text": "paper.md"},
        "level": c.release.level,
        "materials": _materials(c),
        "target": {"claim": cand.claim, "metric": cand.metric, "value": cand.value, "direction": cand.direction,
                   "where": cand.where},
        "criteria": cand.criteria,
        "budget": {"wall_minutes": b.wall_minutes, "gpu_hours": b.gpu_hours, "gpus": b.gpus},
        "reference": None,
        "tags": [c.area, f"published:{p.published or 'unknown'}", f"first-version:{p.first_version or 'unknown'}",
                 f"code-created:{_created(c) or 'unknown'}"],
        "review": {"status": "pending", "checklist": checklist(c)},
    }
    return spec


def _created(c: Curated) -> str | None:
    return next((v.created for v in c.release.released("code") if v.created), None)


def checklist(c: Curated) -> dict[str, str]:
    cand, rel = c.candidate, c.release
    assert cand is not None  # a paper without a headline claim is left out before drafting
    return {
        "claim at its location": f"{cand.where}: value {cand.value:g} "
                                 + ("found there by code" if cand.found else "NOT found there: check by hand")
                                 + (f" ({c.proposal})" if c.proposal else ""),
        "materials verified": "; ".join([f"{v.link.kind} {v.link.url}: {v.reason}"
                                         for k in ("code", "data", "weights") for v in getattr(rel, k)]
                                        + [f"promise: {x}" for x in rel.promises]) or "none found",
        "level": f"{rel.level} ({LEVEL_RULE})",
        "criteria rule": cand.criteria_rule,
        "budget rule": (f"stated: '{c.budget.stated}'; " if c.budget.stated else "nothing stated; ") + c.budget.rule,
        "reference": "write reference/reproduce.sh and run: reclaim tasks validate --with-reference",
    }


def write_draft(items: list[Curated], dest: Path, *, name: str, version: str, year: int, seed: int,
                left_out: list[tuple[str, str]]) -> list[Path]:
    """The suite draft at ``dest``; returns the task folders written."""
    dest.mkdir(parents=True, exist_ok=True)
    description = f"Draft from reclaim curate (seed {seed}); every task pending review."
    (dest / "suite.yaml").write_text(yaml.safe_dump({"name": name, "version": version, "description": description},
                                                    sort_keys=False))
    taken: set[str] = set()
    written = []
    for c in items:
        tid = slug(c.paper.title, taken)
        d = dest / tid
        d.mkdir(exist_ok=True)
        (d / "task.yaml").write_text(yaml.safe_dump(task_yaml(c, tid, year), sort_keys=False, allow_unicode=True))
        (d / "paper.md").write_text(c.text if c.text.strip() else f"# {c.paper.title}\n\n{c.paper.abstract}\n")
        written.append(d)
    lines = [f"# {name} {version}: curation record", "", f"Seed {seed}; {len(items)} task(s) drafted.", "",
             "| task | level | area | budget band | published | first arXiv version | code created |",
             "|---|---|---|---|---|---|---|"]
    lines += [f"| {d.name} | {c.release.level} | {c.area} | {c.band} | {c.paper.published or '—'} | "
              f"{c.paper.first_version or '—'} | {_created(c) or '—'} |" for c, d in zip(items, written, strict=True)]
    lines += ["", "## Left out", ""] + [f"- {title}: {why}" for title, why in left_out]
    (dest / "CURATION.md").write_text("\n".join(lines) + "\n")
    return written
