"""The mechanical part of a yearly refresh: each accepted paper's text read, its releases found
and verified, a headline target proposed and checked, a budget estimated; then a stratified sample
written as a draft suite for a person to review."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.curate.draft import Curated, sample, write_draft
from reclaim.curate.http import Fetcher, FetchError
from reclaim.curate.released import Apis, released
from reclaim.curate.sources import Source
from reclaim.curate.targets import budget, headline

NO_TARGET = "no results table with a row for the paper's own method, and no number beside a metric word in its abstract"


class Summary(BaseModel):
    papers: int = 0
    drafted: int = 0
    left_out: list[tuple[str, str]] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    requests: int = 0
    levels: dict[str, int] = Field(default_factory=dict)


def paper_text(paper, fetcher: Fetcher, read_pdfs: bool) -> str:
    """The paper's text: its PDF read by reclaim's extraction where asked and reachable, else its
    title and abstract (links in the abstract are still found)."""
    head = f"# {paper.title}\n\n## Abstract\n\n{paper.abstract}\n"
    if paper.text:  # read already (a local PDF)
        return head + "\n" + paper.text
    if not (read_pdfs and paper.pdf):
        return head
    try:
        answer = fetcher.get(paper.pdf)
    except FetchError:
        return head
    if not answer.ok or not answer.body.startswith(b"%PDF"):
        return head
    from reclaim.materials.paper import pdf_to_text

    with tempfile.NamedTemporaryFile(suffix=".pdf") as fh:
        fh.write(answer.body)
        fh.flush()
        try:
            return head + "\n" + pdf_to_text(Path(fh.name), paper.pdf)
        except Exception:
            return head


def curate(source: Source, fetcher: Fetcher, dest: Path, *, n: int, seed: int, name: str, version: str,
           year: int, apis: Apis | None = None, read_pdfs: bool = True, proposer=None) -> Summary:
    """``proposer``: an optional model (curate/propose.py) whose checked proposal replaces the rule's."""
    t0 = time.monotonic()
    summary = Summary()
    items: list[Curated] = []
    for paper in source.papers():
        summary.papers += 1
        text = paper_text(paper, fetcher, read_pdfs)
        cand = headline(text, paper.title)
        said = ""
        if proposer is not None:
            cand, said = proposer.propose(text, cand)
        if cand is None:
            summary.left_out.append((paper.title, NO_TARGET))
            continue
        if not cand.found:
            summary.left_out.append((paper.title, f"the proposed value is not where it is said to be ({cand.where})"))
            continue
        items.append(Curated(paper=paper, text=text, release=released(text, fetcher, apis), candidate=cand,
                             budget=budget(text), proposal=said))
    summary.problems = list(source.problems)
    chosen = sample(items, n, seed)
    write_draft(chosen, dest, name=name, version=version, year=year, seed=seed, left_out=summary.left_out)
    summary.drafted = len(chosen)
    for c in chosen:
        summary.levels[c.release.level] = summary.levels.get(c.release.level, 0) + 1
    summary.seconds = round(time.monotonic() - t0, 3)
    summary.requests = fetcher.requests
    return summary
