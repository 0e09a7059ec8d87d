"""`reclaim materials`: fetch a suite's released materials and papers into the cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from reclaim.materials import CACHE_VAR, CachedMaterial, MaterialCache, MaterialsError, extracted_text, paper_pdf
from reclaim.spec import SpecError, load_suite
from reclaim.suites import resolve_suite

materials_app = typer.Typer(help="Fetch released materials and papers into the content-addressed cache.")
console = Console()
err = Console(stderr=True)
KINDS = ("code", "data", "weights")


def fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


@materials_app.command("fetch")
def fetch(
    suite: Annotated[str | None, typer.Argument(help="Suite folder or bundled name.")] = None,
    offline: Annotated[bool, typer.Option(help="Fetch nothing: only check that everything is in the cache.")] = False,
    cache: Annotated[Path | None, typer.Option(
        help=f"Cache folder (default ${CACHE_VAR}, else ~/.cache/reclaim/materials).")] = None,
) -> None:
    """Fetch every material of every task (also those a level withholds) and every paper PDF."""
    try:
        s = load_suite(resolve_suite(suite))
    except FileNotFoundError as e:
        fail(str(e))
    except SpecError as e:
        for p in e.problems:
            err.print(f"[red]✗[/] {p}", highlight=False)
        fail(f"{len(e.problems)} problem(s) in {resolve_suite(suite)}")
    mc = MaterialCache(cache, offline=offline)
    got: list[CachedMaterial] = []
    failed = 0
    for task in s.tasks:
        spec_file = task.dir / "task.yaml"
        wanted = list(task.spec.materials.refs().items())
        for name, ref in wanted:
            try:
                m = mc.get(ref, task.dir, f"{spec_file}: materials.{name}")
            except MaterialsError as e:
                failed += 1
                console.print(f"[red]✗[/] {task.id:<28} {name:<8} {e}", highlight=False)
                continue
            got.append(m)
            _line(task.id, name, m)
        paper = task.spec.paper
        if not (paper.pdf or paper.arxiv):
            continue
        where = f"{spec_file}: paper"
        try:
            pdf = paper_pdf(paper, task.dir, mc, where)
            assert pdf is not None  # paper.pdf or paper.arxiv is given: it has one
            if not offline:
                extracted_text(pdf, where)
        except MaterialsError as e:
            failed += 1
            console.print(f"[red]✗[/] {task.id:<28} {'paper':<8} {e}", highlight=False)
            continue
        got.append(pdf)
        _line(task.id, "paper", pdf)
    fetched = [m for m in got if m.fetched]
    verb = "present" if offline else "ready"
    console.print(f"{len(got)} of {len(got) + failed} materials {verb} in {mc.root}: "
                  f"{len(fetched)} fetched ({size(sum(m.transferred for m in fetched))} transferred), "
                  f"{len(got) - len(fetched)} cached, {len({m.digest for m in got})} objects, "
                  f"{size(sum(m.bytes for m in {m.digest: m for m in got}.values()))}", highlight=False)
    if failed:
        fail(f"{failed} material(s) could not be {'found in the cache' if offline else 'fetched'}"
             + (f"; run: reclaim materials fetch {suite or ''}".rstrip() if offline else ""), code=1)


def _line(task: str, name: str, m: CachedMaterial) -> None:
    state = "[green]fetched[/]" if m.fetched else "cached"
    console.print(f"[green]✓[/] {task:<28} {name:<8} {m.kind:<5} {m.source}  {m.digest[:12]}  "
                  f"{size(m.bytes):>10}  {state}", highlight=False, soft_wrap=True)
