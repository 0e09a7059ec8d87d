"""`reclaim materials`: fetch a suite's released materials and papers into the cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from reclaim.materials import CACHE_VAR, CachedMaterial, MaterialCache, MaterialsError, extracted_text, paper_pdf
from reclaim.spec import SpecError, load_suite
from reclaim.suites import resolve_suite
from reclaim.words import plural

materials_app = typer.Typer(help="Fetch released materials and papers into the content-addressed cache.")
console = Console()
err = Console(stderr=True)
KINDS = ("code", "data", "weights")


def fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}", highlight=False)
    raise typer.Exit(code)


def size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if round(n, 1) < 1024 or unit == "GiB":  # 1023.97 KiB is 1.0 MiB, not "1024.0 KiB"
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
    s, _ = _suite_tasks(suite, [])
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
    verb = "present" if offline else "ready"
    console.print(f"{len(got)} of {len(got) + failed} materials {verb} in {mc.root}: {fetched_in_words(got)}, "
                  f"{plural(len({m.digest for m in got}), 'object')}, "
                  f"{size(sum(m.bytes for m in {m.digest: m for m in got}.values()))}", highlight=False)
    if failed:
        fail(f"{failed} material(s) could not be {'found in the cache' if offline else 'fetched'}"
             + (f"; run: reclaim materials fetch {suite or ''}".rstrip() if offline else ""), code=1)


def fetched_in_words(got: list[CachedMaterial]) -> str:
    """'2 fetched (1.2 MiB transferred), 3 already cached', in plain words whatever the counts: a source
    that does not count its bytes (git) is fetched with no size, never '(0 B transferred)'."""
    new = [m for m in got if m.fetched]
    moved = sum(m.transferred for m in new)
    parts = [f"{len(new)} fetched" + (f" ({size(moved)} transferred)" if moved else "")] if new else []
    if old := len(got) - len(new):
        parts.append(f"{'all ' if not new and old > 1 else ''}{old} already cached"
                     + ("" if new else " (nothing transferred)"))
    return ", ".join(parts) or "nothing to fetch"


def _line(task: str, name: str, m: CachedMaterial) -> None:
    state = "[green]fetched[/]" if m.fetched else "already cached"
    console.print(f"[green]✓[/] {task:<28} {name:<8} {m.kind:<5} {m.source}  {m.digest[:12]}  "
                  f"{size(m.bytes):>10}  {state}", highlight=False, soft_wrap=True)


@materials_app.command("lock")
def lock(
    suite: Annotated[str | None, typer.Argument(help="Suite folder.")] = None,
) -> None:
    """Pin what a task could not pin by hand: read every file the suite's tasks fetch over HTTP (their
    materials, their papers' PDFs) once and record its sha256, and resolve every Hub repository left
    without a revision to its current commit, in suite.lock; every later fetch must match the lock."""
    from reclaim.materials.lock import make_lock
    from reclaim.spec.lock import LOCK_FILE, write_lock

    folder = resolve_suite(suite)
    old_lock = folder / LOCK_FILE
    old = old_lock.read_bytes() if old_lock.is_file() else None
    old_lock.unlink(missing_ok=True)  # locked afresh: the old lock must not fill the pins
    try:
        s = load_suite(folder)
        made, failures = make_lock(s, lambda key, url, sha: console.print(
            f"[green]✓[/] {key:<36} {sha}  {url}", highlight=False))
    except SpecError as e:
        for p in e.problems:
            err.print(f"[red]✗[/] {p}", highlight=False)
        failures, made = [f"{len(e.problems)} problem(s) in {folder}"], None
    for f in failures:
        console.print(f"[red]✗[/] {f}", highlight=False)
    if failures or made is None:
        if old is not None:
            old_lock.write_bytes(old)  # the lock as it was
        fail(f"{len(failures)} file(s) could not be locked; {LOCK_FILE} left as it was", code=1)
    assert made is not None  # fail() does not return
    path = write_lock(folder, made)
    console.print(f"locked {len(made.files)} file(s) in {path}", highlight=False)


def _suite_tasks(suite: str | None, tasks: list[str]):
    try:
        s = load_suite(resolve_suite(suite))
    except FileNotFoundError as e:
        fail(str(e))
    except SpecError as e:
        for p in e.problems:
            err.print(f"[red]✗[/] {p}", highlight=False)
        fail(f"{len(e.problems)} problem(s) in {resolve_suite(suite)}")
    known = {t.id for t in s.tasks}
    if unknown := [t for t in tasks if t not in known]:
        fail(f"unknown task(s) {', '.join(unknown)} in suite {s.meta.name}")
    return s, [t for t in s.tasks if not tasks or t.id in tasks]


def _holds(m) -> None:
    from reclaim.materials.bundle import BundleManifest

    assert isinstance(m, BundleManifest)
    console.print(f"suite {m.suite} {m.suite_version}, {plural(len(m.tasks), 'task')}, made "
                  f"{m.created:%Y-%m-%d %H:%M} UTC: {plural(len(m.items), 'material')} "
                  f"({plural(len({i.digest for i in m.items}), 'object')}), {plural(len(m.wheels), 'package file')}, "
                  f"{size(m.bytes)}", highlight=False)
    if m.lacks:
        console.print(f"[yellow]it lacks {plural(len(m.lacks), 'item')}:[/]", highlight=False)
        for lack in m.lacks:
            console.print(f"  {lack.task} {lack.name}: {lack.why}", highlight=False, soft_wrap=True)


@materials_app.command("pack")
def pack(
    suite: Annotated[str | None, typer.Argument(help="Suite folder or bundled name.")] = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="The bundle file to write (.tar.gz).")] = Path(
        "reclaim-bundle.tar.gz"),
    task: Annotated[list[str] | None, typer.Option(help="Only this task; repeatable (default: every task).")] = None,
    packages: Annotated[bool, typer.Option(help="Also download the packages the environments install.")] = True,
    offline: Annotated[bool, typer.Option(help="Fetch nothing: pack what the cache holds.")] = False,
    cache: Annotated[Path | None, typer.Option(
        help=f"Cache folder (default ${CACHE_VAR}, else ~/.cache/reclaim/materials).")] = None,
) -> None:
    """On a machine with the network: fetch what the tasks need (repositories at their commits, files,
    Hub snapshots, papers' PDFs, the packages of their environments) and pack it, with its checksums,
    into one file to carry to a machine without (`reclaim materials unpack`)."""
    from reclaim.materials.bundle import collect
    from reclaim.materials.bundle import pack as write

    s, tasks = _suite_tasks(suite, task or [])
    mc = MaterialCache(cache, offline=offline)
    m = collect(s.meta.name, s.meta.version, tasks, mc, packages=packages,
                say=lambda line: console.print(line, highlight=False, soft_wrap=True))
    write(m, mc, output)
    console.print(f"packed {output} ({size(output.stat().st_size)} compressed)", highlight=False, soft_wrap=True)
    _holds(m)
    if m.lacks:
        fail(f"the bundle lacks {plural(len(m.lacks), 'item')}: a run of those tasks from it stops before its "
             "first trial; fetch them where they can be reached, or give a mirror (RECLAIM_GIT_MIRRORS)", code=1)


@materials_app.command("unpack")
def unpack(
    bundle: Annotated[Path, typer.Argument(help="A bundle made by `reclaim materials pack`.")],
    cache: Annotated[Path | None, typer.Option(
        help=f"Cache folder to fill (default ${CACHE_VAR}, else ~/.cache/reclaim/materials).")] = None,
) -> None:
    """Install a bundle into the materials cache, every object and package checked against its
    checksum; then `reclaim run --offline` runs its tasks with no network at all."""
    from reclaim.materials.bundle import unpack as install

    mc = MaterialCache(cache)
    try:
        m = install(bundle, mc)
    except MaterialsError as e:
        fail(str(e), code=1)
    console.print(f"unpacked {bundle} into {mc.root}", highlight=False, soft_wrap=True)
    _holds(m)
    console.print(f"run with: reclaim run --suite SUITE --offline --materials-cache {mc.root}", highlight=False,
                  soft_wrap=True)


@materials_app.command("show")
def show(bundle: Annotated[Path, typer.Argument(help="A bundle made by `reclaim materials pack`.")]) -> None:
    """What a bundle holds and what it lacks, read from its bundle.json (nothing is unpacked)."""
    from reclaim.materials.bundle import read_manifest

    try:
        m = read_manifest(bundle)
    except MaterialsError as e:
        fail(str(e))
    _holds(m)
    for i in m.items:
        console.print(f"  {i.task} {i.name}: {i.kind} {i.source} {i.digest[:12]} {size(i.bytes)}", highlight=False,
                      soft_wrap=True)
