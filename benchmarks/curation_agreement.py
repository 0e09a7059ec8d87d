"""How far `reclaim curate` agrees with hand-posed tasks on the same papers: per field (drafted at
all, level, code repository found, target value), over the papers both hold.

    python benchmarks/curation_agreement.py DRAFT_FOLDER [SUITE]   # SUITE default: neurips2025
    python benchmarks/curation_agreement.py --from-suite [SUITE]   # drafts it here, offline

Make the draft from whatever source reaches the papers (``reclaim curate build --csv papers.csv`` with
titles, abstracts and arXiv ids; ``--openreview`` and ``--pdfs`` where the network allows).
``--from-suite`` writes that CSV from the suite itself (each paper's title, arXiv id, and as its
abstract the quoted abstract where the target was read there, else the claim in the paper's words,
links taken out: no release is looked up, so the levels it drafts are what the text alone says). A value agrees where the draft's target is one of the hand-posed task's numbers (as
itself, or as a percentage of it)."""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import yaml

from reclaim.spec import load_suite
from reclaim.suites import resolve_suite


def _same(a: float, b: float) -> bool:
    return any(math.isclose(a, x, rel_tol=1e-6, abs_tol=1e-9) for x in (b, b * 100, b / 100))


def main(draft: Path, suite: str = "neurips2025") -> None:
    hand = {}
    for t in load_suite(resolve_suite(suite)).tasks:
        hand.setdefault(t.spec.paper.title, []).append(t.spec)
    drafted = {}
    for f in sorted(draft.glob("*/task.yaml")):
        d = yaml.safe_load(f.read_text(encoding="utf-8"))
        drafted[" ".join(d["paper"]["title"].split())] = d
    n = len(hand)
    both = [title for title in hand if title in drafted]
    level = sum(any(s.level.value == drafted[t]["level"] for s in hand[t]) for t in both)
    released = sum(any(s.materials.released_level().value == drafted[t]["level"] for s in hand[t]) for t in both)

    def repo(d: dict) -> str | None:
        git = ((d.get("materials") or {}).get("code") or {}).get("git") or {}
        return (git.get("url") or "").rstrip("/").removesuffix(".git").lower() or None

    code = sum(repo(drafted[t]) == hand[t][0].materials.code.git.url.lower() for t in both
               if hand[t][0].materials.code and hand[t][0].materials.code.git)
    value = sum(any(_same(float(drafted[t]["target"]["value"]), m.value) for s in hand[t] for m in s.metrics()
                    if not m.pending) for t in both)
    print(f"papers posed by hand: {n}; drafted by curate: {len(both)} ({len(both) / n:.0%})")
    for name, k in (("level as posed", level), ("level as released", released), ("code repository", code),
                    ("target value", value)):
        print(f"  {name:<20} {k}/{len(both)} of the drafted" + (f" ({k / len(both):.0%})" if both else ""))
    for t in both:
        d = drafted[t]
        print(f"  - {t[:60]}: {d['level']}, {d['target'].get('metric')} = {d['target'].get('value')} "
              f"({d['target'].get('where')}); by hand: {hand[t][0].level.value}, "
              + ", ".join(f"{m.name} = {'pending' if m.pending else f'{m.value:g}'}" for m in hand[t][0].metrics()))


def draft_from_suite(suite: str, out: Path) -> Path:
    """The suite's papers as curate's CSV, drafted offline into ``out``."""
    import csv
    import subprocess

    rows = {}
    for t in load_suite(resolve_suite(suite)).tasks:
        sp = t.spec
        src = sp.target.source
        text = src.quote if src is not None and "abstract" in src.where.lower() else sp.target.claim
        text = re.sub(r"https?://\S+", "", text)  # no release to look up: what the text alone says
        rows.setdefault(sp.paper.title, {"title": sp.paper.title, "abstract": " ".join(text.split()),
                                         "arxiv": (sp.paper.arxiv or "").split("v")[0], "venue": "NeurIPS 2025",
                                         "decision": "accept"})
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "papers.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=["title", "abstract", "arxiv", "venue", "decision"])
        w.writeheader()
        w.writerows(rows.values())
    draft = out / "draft"
    subprocess.run([sys.executable, "-m", "reclaim.cli", "curate", "build", "--csv", str(out / "papers.csv"), "-o",
                    str(draft), "--sample", str(len(rows)), "--cache", str(out / "cache"),
                    "--interval", "0"], check=True)
    return draft


if __name__ == "__main__":
    if sys.argv[1:2] == ["--from-suite"]:
        import tempfile

        name = (sys.argv[2:3] or ["neurips2025"])[0]
        main(draft_from_suite(name, Path(tempfile.mkdtemp(prefix="curation-agreement-"))), name)
    else:
        main(Path(sys.argv[1]), *(sys.argv[2:3] or []))
