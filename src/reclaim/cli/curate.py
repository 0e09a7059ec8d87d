"""`reclaim curate`: build next year's suite draft from a venue's accepted papers, and review it."""

from __future__ import annotations

import getpass
import os
import subprocess
from pathlib import Path
from typing import Annotated, Optional

import typer
import yaml
from rich.markup import escape

from reclaim.cli.common import console, fail

curate_app = typer.Typer(help="Draft a suite from a venue's accepted papers, then review it task by task.",
                         no_args_is_help=True)


@curate_app.command("build")
def build(
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder to write the suite draft to (new or empty).")],
    openreview: Annotated[Optional[str], typer.Option(
        help="OpenReview venue id, e.g. NeurIPS.cc/2025/Conference.")] = None,
    arxiv: Annotated[Optional[list[str]], typer.Option(help="arXiv id; repeatable.")] = None,
    csv: Annotated[Optional[Path], typer.Option(
        help="A CSV of papers for any other venue (a title column at least).")] = None,
    pdf_folder: Annotated[Optional[Path], typer.Option(
        help="A folder of PDFs for any other venue, one paper each.")] = None,
    sample: Annotated[int, typer.Option(help="How many papers to draft (a stratified sample).")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the sample: the same cache and seed give the same draft.")] = 0,
    name: Annotated[str, typer.Option(help="The suite's name.")] = "draft",
    version: Annotated[str, typer.Option(help="The suite's version.")] = "0.1",
    year: Annotated[int, typer.Option(help="The papers' year.")] = 2025,
    offline: Annotated[bool, typer.Option(help="Answer every request from the curation cache; fetch nothing.")] = False,
    cache: Annotated[Optional[Path], typer.Option(help="The curation cache (default ~/.cache/reclaim/curate).")] = None,
    pdfs: Annotated[bool, typer.Option(help="Read each paper's PDF (else the abstract only).")] = True,
    interval: Annotated[float, typer.Option(
        help="Seconds between two requests to one host (be polite to APIs).")] = 1.0,
    model: Annotated[Optional[str], typer.Option(
        help="Optional: a model that proposes each headline claim (kept only where code finds its value at the "
             "place it names); key $OPENAI_API_KEY.")] = None,
    openai_base_url: Annotated[Optional[str], typer.Option(
        help="OpenAI-compatible endpoint for --model (default $OPENAI_BASE_URL or api.openai.com).")] = None,
) -> None:
    """Fetch the accepted papers, find and verify what their authors released, propose a target,
    criteria and budget each, and write a stratified sample as a suite draft: every task
    review: pending, with the checklist a person confirms (reclaim curate review)."""
    from reclaim.curate.http import Fetcher, FetchError
    from reclaim.curate.pipeline import curate
    from reclaim.curate.sources import Arxiv, CsvPapers, OpenReview, PdfFolder, Source

    given = [x for x in (openreview, arxiv, csv, pdf_folder) if x]
    if len(given) != 1:
        fail("give one source: --openreview VENUE_ID, --arxiv ID (repeatable), --csv FILE or --pdf-folder DIR")
    if out.exists() and any(out.iterdir()):
        fail(f"{out} is not empty; give a new folder for the draft")
    fetcher = Fetcher(cache, offline=offline, min_interval=interval)
    source: Source
    if openreview:
        source = OpenReview(openreview, fetcher)
    elif arxiv:
        source = Arxiv(list(arxiv), fetcher)
    elif csv:
        source = CsvPapers(csv)
    else:
        assert pdf_folder is not None  # the one source given
        source = PdfFolder(pdf_folder)
    proposer = None
    if model:
        from reclaim.curate.propose import Proposer

        proposer = Proposer(model, openai_base_url or os.environ.get("OPENAI_BASE_URL"),
                            os.environ.get("OPENAI_API_KEY"))
    try:
        s = curate(source, fetcher, out, n=sample, seed=seed, name=name, version=version, year=year, read_pdfs=pdfs,
                   proposer=proposer)
    except FetchError as e:
        fail(str(e))
    finally:
        fetcher.close()
    console.print(f"{s.papers} paper(s) read, {s.drafted} drafted into {out} "
                  f"({', '.join(f'{k} {v}' for k, v in sorted(s.levels.items())) or 'none'}); "
                  f"{len(s.left_out)} left out (CURATION.md says why); {s.requests} request(s), {s.seconds:.1f} s",
                  highlight=False, soft_wrap=True)  # paths whole, to paste
    for p in s.problems[:20]:
        console.print(f"[yellow]![/] {escape(p)}", highlight=False, soft_wrap=True)
    console.print(f"next: reclaim curate review {out}", highlight=False, soft_wrap=True)


def _show(path: Path, spec: dict) -> None:
    t = spec["target"]
    console.print(f"\n[bold]{escape(spec['id'])}[/] ({escape(str(path))})", highlight=False)
    console.print(f"  {escape(spec['paper']['title'])} · level {spec['level']} · "
                  f"target {escape(t['metric'])} {t['direction']} {t['value']} at {escape(t['where'])}",
                  highlight=False)
    for item, found in spec["review"].get("checklist", {}).items():
        console.print(f"  [ ] {escape(item)}: {escape(found)}", highlight=False)


@curate_app.command("review")
def review(
    suite: Annotated[Path, typer.Argument(help="A suite draft written by reclaim curate build.")],
    reviewer: Annotated[Optional[str], typer.Option(help="Your name, kept in each task's review.")] = None,
) -> None:
    """Walk through every pending task of a draft: accept it, edit its task.yaml ($EDITOR) and come
    back to it, reject it, or skip it for later. Accepted tasks can run; rejected ones never do."""
    from reclaim.spec.load import load_task
    from reclaim.spec.review import acceptance_problem

    tasks = sorted(p.parent for p in suite.glob("*/task.yaml"))
    pending = [d for d in tasks if ((yaml.safe_load((d / "task.yaml").read_text()) or {}).get("review") or {})
               .get("status") == "pending"]
    if not tasks:
        fail(f"{suite}: no task folders (a draft has one folder with a task.yaml per task)")
    console.print(f"{len(pending)} of {len(tasks)} task(s) pending review in {suite}", highlight=False)
    who = reviewer or os.environ.get("USER") or getpass.getuser()
    counts = {"accepted": 0, "rejected": 0, "skipped": 0}
    for d in pending:
        while True:
            spec = yaml.safe_load((d / "task.yaml").read_text())
            _show(d, spec)
            choice = typer.prompt("  [a]ccept, [e]dit, [r]eject, [s]kip, [q]uit", default="s").strip().lower()[:1]
            if choice == "e":
                subprocess.run([os.environ.get("EDITOR", "vi"), str(d / "task.yaml")], check=False)
                continue
            if choice == "a":
                try:
                    spec_now = load_task(d)  # it must validate as it stands
                except Exception as e:
                    console.print(f"  [red]✗[/] {escape(str(e))}; edit it first", highlight=False)
                    continue
                review = spec_now.review.model_copy(update={"status": "accepted"}) if spec_now.review else None
                unearned = acceptance_problem(spec_now.model_copy(update={"review": review}))
                if unearned is not None:  # accepted means checked: a reference, recorded or with a checklist
                    console.print(f"  [red]✗[/] {escape(unearned)}; edit it first", highlight=False)
                    continue
            break
        if choice == "q":
            break
        status = {"a": "accepted", "r": "rejected"}.get(choice)
        if status is None:
            counts["skipped"] += 1
            continue
        spec["review"].update(status=status, by=who)
        (d / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True))
        counts[status] += 1
    console.print(", ".join(f"{k} {v}" for k, v in counts.items()), highlight=False)
