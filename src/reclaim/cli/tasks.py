"""`reclaim tasks`: list and validate suites."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from reclaim.spec import Level, SpecError, load_suite, unlisted_tasks
from reclaim.spec.overview import overview, status
from reclaim.suites import resolve_suite
from reclaim.words import plural

# `tasks list` stays quick: the judge, runner and sandbox are imported by the commands that run things.

tasks_app = typer.Typer(help="List and validate task suites.")
console = Console(soft_wrap=True)  # paths and numbers stay on one line, whatever the width
err = Console(stderr=True, soft_wrap=True)


def _load(suite: Optional[str]):
    try:
        return load_suite(resolve_suite(suite))
    except FileNotFoundError as e:
        err.print(f"[bold red]error:[/] {e}", highlight=False)
        raise typer.Exit(2) from None


@tasks_app.command("list")
def list_tasks(suite: Annotated[Optional[str], typer.Argument(help="Suite folder or bundled name.")] = None) -> None:
    """The tasks of a suite with their level, target and content hash."""
    try:
        s = _load(suite)
    except SpecError as e:
        err.print(f"[bold red]{len(e.problems)} problem(s):[/]\n{e}", highlight=False)
        raise typer.Exit(1) from None
    # readable at 80 columns: no outer border, headers never cut (min_width), cells wrapped at
    # spaces rather than cut to "…"; when narrow, each number's metric and target share a cell
    # and the hash, the least read, is left out
    wide = console.width >= 100
    table = Table(title=f"{s.meta.name} {s.meta.version}: {plural(len(s.tasks), 'task')}", title_justify="left",
                  highlight=False, box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True, show_edge=False)
    cols = ["task", "level", "area", "target", "budget", "status", "hash"] if wide else \
        ["task", "level", "target", "budget", "status"]
    arrow = {"higher_is_better": "≥", "lower_is_better": "≤", "match": "≈"}
    targets = {t.id: [f"{m.name} " + ("pending" if m.pending else f"{arrow[m.direction.value]} {m.value:g}")
                      for m in t.spec.metrics()] for t in s.tasks}
    longest = {"task": max((len(t.id) for t in s.tasks), default=4),
               "target": max((len(line) for lines in targets.values() for line in lines), default=6)}
    longest["status"] = max((len(word) for t in s.tasks for word in status(t).split()), default=6)
    mins = {col: len(col) for col in cols} | {"task": min(longest["task"], 32), "level": 11, "budget": 7,
                                              "status": longest["status"]}
    room = console.width - sum(mins.values()) - 2 * (len(cols) - 1)  # what is left for a target to keep whole
    mins["target"] = max(mins["target"], min(longest["target"], mins["target"] + max(room, 0)))
    name = max((len(m.name) for t in s.tasks for m in t.spec.metrics()), default=0)
    if not wide and (name > mins["target"] or longest["task"] > mins["task"]):  # wrapping at spaces is fine
        _stacked(s, targets)  # a table would break a metric name or an id mid-word: one task per paragraph
        return
    for col in cols:  # a task id stays whole up to 32 characters, a metric and its target where room allows
        table.add_column(col, min_width=mins[col], overflow="fold", no_wrap=col in ("task", "level", "hash"))
    for t in sorted(s.tasks, key=lambda t: t.spec.level.rank):
        sp = t.spec
        target = "\n".join(targets[t.id])
        budget = f"{sp.budget.wall_minutes:g} min\n{sp.budget.gpu_hours:g} GPU-h"
        row = [t.id, sp.level.value] + ([sp.area or "-"] if wide else []) + [target, budget, status(t)]
        table.add_row(*row, *([t.hash[:8]] if wide else []))
    console.print(table)
    for line in overview(s.tasks).lines():
        console.print(escape(line), highlight=False)
    if not wide:
        console.print("(areas and content hashes: widen the terminal to 100 columns)", style="dim", highlight=False)


@tasks_app.command("validate")
def validate(
    suite: Annotated[Optional[str], typer.Argument(help="Suite folder or bundled name.")] = None,
    with_reference: Annotated[bool, typer.Option(
        "--with-reference", help="Also run every reference solution and weakened experiment in a sandbox and "
                                 "judge them: each reference must reproduce, each weakened experiment "
                                 "must miss.")] = False,
    sandbox: Annotated[str, typer.Option(help="Sandbox for --with-reference: auto, bwrap, process.")] = "auto",
    jobs: Annotated[int, typer.Option(help="Trials run at once.")] = 2,
    keep: Annotated[bool, typer.Option(
        "--keep", help="Keep the run folder of --with-reference and print its path (kept anyway when a "
                       "task fails).")] = False,
    allow_pending: Annotated[bool, typer.Option(
        help="With --with-reference: also run the references of drafts no one has accepted yet (review: pending); "
             "drafts are validated either way, and fail nothing by being drafts.")] = False,
    task: Annotated[Optional[list[str]], typer.Option(
        "--task", help="With --with-reference: run only these tasks' references (repeatable); every task is still "
                       "checked offline.")] = None,
    record: Annotated[bool, typer.Option(
        "--record", help="With --with-reference: write what each reference's re-execution cost and gave under "
                         "each perturbation into verified.yaml beside its task.yaml, for the compute and "
                         "perturbation checks.")] = False,
) -> None:
    """Check every task of a suite and list all problems, not just the first; warn where the rules
    cannot check a target."""
    try:
        s = _load(suite)
    except SpecError as e:
        for p in e.problems:
            err.print(f"[red]✗[/] {escape(str(p))}", highlight=False)
        err.print(f"[bold red]{len(e.problems)} problem(s)[/] in {resolve_suite(suite)}")
        raise typer.Exit(1) from None
    console.print(f"[green]✓[/] {s.meta.name} {s.meta.version}: {len(s.tasks)} tasks, specs valid")
    from reclaim.cli.validation import task_warnings
    from reclaim.sandbox import check_backend, default_backend

    warned = drafts_line(s)
    for name in unlisted_tasks(s.dir, s.meta):  # a folder the tasks: list leaves out is skipped silently
        warned += 1
        console.print(f"[yellow]![/] {escape(name)}: has a task.yaml, but the tasks: list of suite.yaml leaves it "
                      "out, so the suite skips it (add it to tasks:, or leave tasks: out to take every folder)",
                      highlight=False)
    settled = 0
    for t in s.tasks:
        recording = record and with_reference and (not task or t.id in task) and t.spec.verify is not None \
            and bool(t.spec.verify.perturb)
        for w in task_warnings(t, s.meta.llm_judged):
            if recording and "--record" in w:  # its fix is what this command is doing
                settled += 1
                continue
            warned += 1
            console.print(f"[yellow]![/] {escape(t.id)}: {escape(w)}", highlight=False)
    if settled:
        console.print(f"({plural(settled, 'warning')} whose fix is this recording left out: `reclaim tasks validate` "
                      "shows any that remain after it)", highlight=False)
    if record and not with_reference:
        err.print("[bold red]error:[/] --record records what the references measured: give --with-reference too")
        raise typer.Exit(2)
    if not with_reference:
        if _problems(s):
            raise typer.Exit(1)
        if warned:
            console.print(f"[yellow]{warned} warning(s)[/] (none fails validation)")
        return
    name = default_backend() if sandbox == "auto" else sandbox
    if (why := check_backend(name)) is not None:
        err.print(f"[bold red]error:[/] sandbox '{name}' cannot run here: {why}")
        raise typer.Exit(2)
    unknown = sorted(set(task or []) - {t.id for t in s.tasks})
    if unknown:
        err.print(f"[bold red]error:[/] --task {', '.join(unknown)}: no such task in {s.meta.name}")
        raise typer.Exit(2)
    run_references(s, name, jobs, keep, warned, record, allow_pending, task or [])


def _stacked(s, targets: dict[str, list[str]]) -> None:
    """`tasks list` where the columns cannot keep every name whole: a line per task (id, level, budget,
    status), then its targets indented, a line each; a name is never broken, whatever the width."""
    console.print(f"{s.meta.name} {s.meta.version}: {plural(len(s.tasks), 'task')}", highlight=False)
    for t in sorted(s.tasks, key=lambda t: t.spec.level.rank):
        b = t.spec.budget
        console.print(f"{escape(t.id)}  {t.spec.level.value}, {b.wall_minutes:g} min, {b.gpu_hours:g} GPU-h, "
                      f"{status(t)}", highlight=False, soft_wrap=True)
        for line in targets[t.id]:
            console.print(f"    {escape(line)}", highlight=False, soft_wrap=True)
    for line in overview(s.tasks).lines():
        console.print(escape(line), highlight=False)
    console.print("(a table, with areas and content hashes: widen the terminal to 100 columns)", style="dim",
                  highlight=False)


def drafts_line(s) -> int:
    """Say which tasks are drafts (validated, listed, never run by a whole-suite run) and why; a
    draft is a status, not a problem. How many warnings that was (0 or 1 per kind)."""
    from reclaim.spec.review import review_status

    kinds = {"pending": "not yet accepted by a reviewer (review: pending)",
             "value": "a target value not yet read from the paper (value: pending)",
             "rejected": "rejected by a reviewer, kept for the record"}
    groups: dict[str, list[str]] = {k: [] for k in kinds}
    for t in s.tasks:
        status = review_status(t.spec)
        if status == "rejected":
            groups["rejected"].append(t.id)
        elif t.spec.pending_values():
            groups["value"].append(t.id)
        elif status == "pending":
            groups["pending"].append(t.id)
    for kind, ids in groups.items():
        if ids:
            console.print(f"[yellow]![/] {plural(len(ids), 'draft')} {kinds[kind]}: validated, never run by a "
                          f"whole-suite run: {escape(', '.join(ids))}", highlight=False)
    return sum(bool(ids) for ids in groups.values())


def _problems(s) -> int:
    """Print what fails validation beyond the specs (tasks no check in code can hold); how many."""
    from reclaim.cli.validation import task_problems

    n = 0
    for t in s.tasks:
        for p in task_problems(t, s.meta.llm_judged, s.meta.sources_required):
            n += 1
            err.print(f"[red]✗[/] {escape(str(t.dir / 'task.yaml'))}: {escape(p)}", highlight=False)
    if n:
        err.print(f"[bold red]{n} problem(s)[/] in {s.dir}")
    return n


def run_references(s, sandbox: str, jobs: int, keep: bool, warned: int, record: bool = False,
                   allow_pending: bool = False, only: list[str] | None = None) -> None:
    """Each reference (must reproduce) and weakened experiment (the partial agent: must miss),
    through the real harness, in a folder of its own."""
    from reclaim.runner.run import RunError, RunOptions, execute, plan_run

    tasks = [t for t in s.tasks if t.spec.reference is not None and (not only or t.id in only)]
    if not tasks:
        console.print("[yellow]![/] no task has a reference solution: nothing to run")
        return
    weak = [t for t in tasks if t.spec.reference.weakened is not None]
    tmp = Path(tempfile.mkdtemp(prefix="reclaim-validate-"))
    rd = None
    failed = True
    try:
        agents = ["reference"] + (["partial"] if weak else [])
        err.print(f"running {len(tasks)} reference(s) and {len(weak)} weakened experiment(s) "
                  f"(sandbox {sandbox}, {jobs} at once)", highlight=False)
        try:
            rd = plan_run(RunOptions(suite=s.dir, agents=agents, jobs=jobs, sandbox=sandbox, runs_root=tmp,
                                     tasks=[t.id for t in tasks], allow_pending=allow_pending))
            records = execute(rd)
        except (RunError, SpecError) as e:
            failed = False  # no trial ran: nothing to keep
            err.print(f"[bold red]error:[/] {escape(str(e))}", highlight=False)
            raise typer.Exit(2) from None
        if record:
            s = _record(s, rd, records, sandbox)
        failed = _report(rd, records, weak, warned) or bool(_problems(s))
    finally:
        where = rd.path if rd is not None else tmp
        if keep or failed:
            console.print(f"run folder kept: {where}", highlight=False, soft_wrap=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    if failed:
        raise typer.Exit(1)


def _num(x) -> str:
    return "nothing" if x is None else f"{x:.6g}"


def _record(s, rd, records, sandbox: str):
    """verified.yaml for each task whose reference's re-execution met its criteria; each such
    reference judged again with what was recorded. Returns the suite, loaded again."""
    from reclaim.cli.validation import costly_checks, cuda_on_cpu, recorded, write_verified
    from reclaim.judge import RulesJudge
    from reclaim.spec import load_suite
    from reclaim.store import VERDICTS, write_model

    for r in records:
        if r.agent != "reference":
            continue
        task = s.task(r.task)
        tdir = rd.trial_dir(r.trial_id)
        got = recorded(tdir, task.spec, sandbox)
        if got is None:
            continue
        path = write_verified(task.dir, got)
        perturbed = "; ".join(f"{k}: {v}" for k, v in got.perturb.items())
        console.print(f"[green]✓[/] {escape(r.task)}: recorded {escape(str(path))} (the reference's re-execution: "
                      f"{got.reference.cpu_s:g} CPU s, {got.reference.gpu_s:g} GPU s"
                      + (f"; perturbed: {escape(perturbed)}" if perturbed else "") + ")", highlight=False)
        if (costly := costly_checks(got)) is not None:
            console.print(f"[yellow]![/] {escape(r.task)}: {escape(costly)}", highlight=False)
        if (cuda := cuda_on_cpu(tdir, task.spec)) is not None:
            console.print(f"[yellow]![/] {escape(r.task)}: {escape(cuda)}", highlight=False)
    s = load_suite(s.dir)
    for r in records:  # judged again under the recorded figures: the checks they enable now apply
        if r.agent == "reference" and (s.task(r.task).dir / "verified.yaml").is_file():
            verdict = RulesJudge().judge(s.task(r.task).spec, rd.trial_dir(r.trial_id), r.status)
            # verdict.json stays sealed
            write_model(rd.trial_dir(r.trial_id) / VERDICTS / "rules-recorded.json", verdict)
            r.outcome = verdict.outcome
    return s


def _report(rd, records, weak, warned: int) -> bool:
    """Print each task's result; True when any task failed."""
    from reclaim.cli.validation import failure_report, measured_vs_criteria, verdict_of
    from reclaim.store import Outcome

    by = {(r.task, r.agent): r for r in records}
    scripts = {t.id: f"{t.spec.reference.path}/{t.spec.reference.weakened}" for t in weak}
    bad_ref = bad_weak = 0
    for task in sorted({r.task for r in records}):
        name = escape(task)
        ref = by.get((task, "reference"))
        if ref is None:
            bad_ref += 1
            console.print(f"[red]✗[/] {name}: the reference left no trial record", highlight=False)
            continue
        ok = ref.outcome == Outcome.reproduced
        bad_ref += not ok
        rows = (verdict_of(rd.trial_dir(ref.trial_id)) or {}).get("metrics") or []
        got = f" (measured {ref.measured:.6g}, target {ref.target:g})" if ref.measured is not None else ""
        if len(rows) > 1:  # every number of the claim, not the first alone
            got = " (" + "; ".join(f"{m.get('name')} measured {_num(m.get('measured'))}, target {_num(m.get('target'))}"
                                   for m in rows) + ")"
        mark = "[green]✓[/]" if ok else "[red]✗[/]"
        console.print(f"{mark} {name}: reference {(ref.outcome or ref.status).value}{got}", highlight=False)
        if not ok:
            for line in failure_report(ref, rd.trial_dir(ref.trial_id)):
                console.print(f"    {line}", highlight=False, markup=False)
        part = by.get((task, "partial"))
        if part is None or part.outcome == Outcome.skipped:
            continue
        tdir = rd.trial_dir(part.trial_id)
        verdict = verdict_of(tdir) or {}
        if part.outcome == Outcome.reproduced:
            bad_weak += 1
            console.print(f"[red]✗[/] {name}: the weakened experiment ({escape(scripts.get(task, 'weakened'))}) "
                          f"meets the criteria ({escape(measured_vs_criteria(verdict))}): an agent that runs it "
                          "and claims the paper's number passes. Fix: make the weakened experiment weaker, or "
                          "tighten the target", highlight=False)
            console.print(f"    trial folder: {tdir}", highlight=False, markup=False, soft_wrap=True)
        elif part.outcome == Outcome.error:
            bad_weak += 1
            console.print(f"[red]✗[/] {name}: the weakened experiment could not be judged (harness error)",
                          highlight=False)
            for line in failure_report(part, tdir):
                console.print(f"    {line}", highlight=False, markup=False)
        else:
            console.print(f"[green]✓[/] {name}: weakened experiment {part.outcome.value} "
                          f"({escape(measured_vs_criteria(verdict))})", highlight=False)
            if part.measured is None:
                warned += 1
                console.print(f"[yellow]![/] {name}: the weakened experiment gave no number "
                              f"({escape(verdict.get('rationale', ''))}): it misses by failing, which checks "
                              "less than a number that falls short", highlight=False)
    if bad_ref:
        err.print(f"[bold red]{bad_ref} task(s) whose reference misses its own target[/]")
    if bad_weak:
        err.print(f"[bold red]{bad_weak} task(s) whose weakened experiment does not miss the target[/]")
    if bad_ref or bad_weak:
        return True
    n = len({r.task for r in records})
    console.print(f"[green]✓[/] every reference reproduces its own target ({n} tasks) and every weakened "
                  f"experiment misses it ({len(weak)} tasks)" + (f"; {warned} warning(s)" if warned else ""),
                  highlight=False)
    return False


@tasks_app.command("new")
def new_task(
    task_id: Annotated[str, typer.Argument(metavar="ID", help="Task id (lowercase letters, digits, dashes): "
                                                              "also the name of its folder.")],
    level: Annotated[Level, typer.Option(help="The level the task is posed at.")],
    suite: Annotated[Optional[Path], typer.Option(
        help="Suite folder to write the task in; a folder without a suite.yaml becomes a new suite (made "
             "with one). Default: the current folder, which must hold a suite.yaml.", show_default=False)] = None,
) -> None:
    """Write a task skeleton to fill in: task.yaml with every required field as a FILL IN and the
    optional ones as comments, placeholder paper.md and reference/reproduce.sh, and the material
    folders of the level. `tasks validate` names every placeholder left until it is filled in."""
    from reclaim.spec.load import load_suite_meta
    from reclaim.spec.skeleton import SUITE_FILE, SkeletonError, write_skeleton

    if suite is None:  # a suite.yaml is never written by surprise into whatever folder the shell is in
        suite = Path(".")
        if not (suite / SUITE_FILE).is_file():
            err.print(f"[bold red]error:[/] this folder ({escape(str(Path.cwd()))}) is not a suite (no {SUITE_FILE}): "
                      f"run this inside a suite folder, or give --suite DIR (a new folder becomes a new suite)",
                      highlight=False, soft_wrap=True)
            raise typer.Exit(2)
    new_suite = not (suite / SUITE_FILE).is_file()
    try:
        written = write_skeleton(suite, task_id, level)
    except SkeletonError as e:
        err.print(f"[bold red]error:[/] {escape(str(e))}", highlight=False)
        raise typer.Exit(2) from None
    if new_suite and (suite / SUITE_FILE) in written:
        console.print(f"[green]✓[/] new suite: wrote {escape(str(suite / SUITE_FILE))} "
                      f"(name {escape(load_suite_meta(suite).name)}, version 0.1: edit them there)", highlight=False)
        written.remove(suite / SUITE_FILE)
    task_dir = suite / task_id
    console.print(f"[green]✓[/] wrote {escape(str(task_dir))} (level {level.value}):", highlight=False)
    for p in written:
        console.print(f"    {escape(str(p))}", highlight=False)
    try:
        listed = load_suite_meta(suite).tasks
    except SpecError:
        listed = None
    if listed is not None and task_id not in listed:
        console.print(f"[yellow]![/] {escape(str(suite / 'suite.yaml'))} lists its tasks: add {escape(task_id)} "
                      "to its tasks:, or the suite skips this folder", highlight=False)
    console.print("next: replace every FILL IN in task.yaml, paper.md and reference/reproduce.sh, put the "
                  "released materials in their folders (deleting each FILL_IN.md), then run "
                  f"`reclaim tasks validate {escape(str(suite))}` (fields: docs/task-format.md)", highlight=False)
