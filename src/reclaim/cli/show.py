"""`reclaim show`: one trial's story in the terminal, from the harness's records."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from reclaim.cli.common import console, fail
from reclaim.report import NotATrial, Story, budget_lines, reruns, trial_story
from reclaim.words import plural

OUTCOME_STYLE = {"reproduced": "bold green", "disqualified": "bold red", "error": "bold yellow"}


def _value(x: float | None) -> str:
    return "—" if x is None else f"{x:.6g}"


def _hanging(mark: str, text: str) -> None:
    """'  MARK text', the text's further lines under its first word, not under the mark."""
    grid = Table.grid(padding=(0, 1, 0, 0), pad_edge=False)
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1)
    grid.add_row(f"  {mark}", text)
    console.print(grid, highlight=False)


def _print_story(s: Story) -> None:
    t = s.trial
    style = OUTCOME_STYLE.get(t.outcome.value if t.outcome else "", "bold")
    outcome = t.outcome.value if t.outcome else f"({t.status.value}, no outcome yet)"
    console.print(f"[bold]{escape(t.trial_id)}[/]  [{style}]{outcome}[/]", highlight=False)
    console.print(f"task {escape(t.task)} ({t.level}) · agent {escape(t.agent)} · seed {t.seed} · "
                  f"sandbox {t.sandbox}{'' if t.isolated else ' (NO isolation)'}", highlight=False)
    if s.claim:
        console.print(f"claim: {escape(s.claim)}" + (f" ({escape(s.where)})" if s.where else ""), highlight=False)
    rows = s.verdict.metrics if s.verdict is not None and len(s.verdict.metrics) > 1 else []
    if rows:  # a claim of several numbers: each with what was measured
        for m in rows:
            console.print(f"target: {escape(m.name)} = {_value(m.target)} ({m.direction}); measured "
                          f"{_value(m.measured)}; accepted where {escape(m.tolerance)}"
                          + ("" if m.met is None else " — holds" if m.met else " — does not hold"), highlight=False)
    else:
        console.print(f"target: {escape(s.metric or '?')} = {_value(s.target)}"
                      + (f" ({s.direction})" if s.direction else "")
                      + (f"; accepted where {escape(s.criteria)}" if s.criteria else ""), highlight=False)
    for w in t.warnings:
        console.print(f"[yellow]warning:[/] {escape(w)}", highlight=False)
    if t.error:
        console.print(f"[yellow]error:[/] {escape(t.error)}", highlight=False)
    if t.note:
        console.print(f"note: {escape(t.note)}", highlight=False)

    timeline = Table(title="timeline (recorded commands and harness notes)", title_justify="left",
                     box=box.SIMPLE_HEAD, pad_edge=False)
    timeline.add_column("#", justify="right", no_wrap=True)
    timeline.add_column("phase", no_wrap=True, min_width=6)
    timeline.add_column("command", ratio=1)
    timeline.add_column("exit", justify="right", no_wrap=True, min_width=4)
    timeline.add_column("seconds", justify="right", no_wrap=True, min_width=7)
    for step in s.steps:
        if step.kind == "command":
            code = "killed" if step.exit_code is None else str(step.exit_code)
            code += " (timed out)" if step.timed_out else ""
            what = (f"({step.role}) " if step.role else "") + step.what + (
                f" [{plural(step.programs, 'program')}]" if step.programs else "")
            timeline.add_row(str(step.id), step.phase, escape(what), code, f"{step.seconds:.2f}")
        else:
            timeline.add_row(str(step.id), step.phase, f"[yellow]{escape(step.what)}[/]", "", "")
    console.print(timeline if s.steps else "timeline: no command was recorded", highlight=False)
    extra = [f"{s.model_calls} model call(s)"] if s.model_calls else []
    extra += [f"{s.network_requests} network request(s)"] if s.network_requests else []
    console.print("budget: " + " · ".join(budget_lines(t.budget) + extra), highlight=False)
    if t.timings.get("total_s") is not None:
        console.print(f"trial took {t.timings['total_s']:.2f} s, harness included", highlight=False)

    if s.reexec is not None:
        r = s.reexec
        line = (f"re-execution ({r.mode}, {escape(r.script)}): " + (
            f"exit {r.exit_code}{' (timed out)' if r.timed_out else ''} in {r.wall_s:.2f} s"
            if r.ran else f"did not run: {escape(r.reason)}"))
        if r.outputs:
            line += f"; wrote {escape(', '.join(r.outputs[:5]))}"
        console.print(line, highlight=False)
        for name, sub in reruns(r):
            if sub is not None:
                console.print(f"  again {name}: " + (f"exit {sub.exit_code}" if sub.ran else
                                                      f"did not run: {escape(sub.reason)}"), highlight=False)
    else:
        console.print("re-execution: none recorded", highlight=False)

    v = s.verdict
    if v is None:
        console.print("verdict: none recorded", highlight=False)
    else:
        console.print(f"verdict ({escape(v.judge)}): [{OUTCOME_STYLE.get(v.outcome, 'bold')}]{v.outcome}[/]"
                      f" · measured {_value(v.measured)} vs target {_value(v.target)} {escape(v.metric)}"
                      + (f" · the agent's own results.json said {_value(v.agent_value)}"
                         if v.agent_value is not None else ""), highlight=False)
        console.print(f"reason: {escape(v.rationale)}", highlight=False)
        if v.flags:
            console.print(f"flags: {escape(', '.join(v.flags))}", highlight=False)
        shown = {step.id for step in s.steps}
        for c in v.citations:  # an event of the timeline is named by its number there, not printed again
            what = "" if c.event_id in shown else f" — {escape(s.cited.get(c.event_id, ''))}"
            _hanging(f"cites #{c.event_id}", f"{escape(c.why)}{what}")
        for f in s.dependence:
            mark = "[dim]·[/]" if not f.applied else "[green]✓[/]" if f.passed else "[red]✗[/]"
            _hanging(mark, f"{escape(f.check)}{' (vouches)' if f.vouches else ''}: {escape(f.detail)}")
    if s.changed:
        console.print(f"released files the agent changed in place ({len(s.changed)} shown; the agent's side is "
                      "untrusted):", highlight=False)
        for d in s.changed:
            console.print(f"  {d.change} {escape(d.path)}", highlight=False)
            for line in d.diff.splitlines():
                console.print(f"    {line}", highlight=False, markup=False)
    for p in s.problems:
        console.print(f"[yellow]record:[/] {escape(p)}", highlight=False)


def trial_folder(where: Path, trial: str | None) -> Path:
    """The trial folder a user names: RUN TRIAL (the run by folder or id, the trial by id) or RUN_DIR/trials/ID."""
    from reclaim.store import find_run

    run = find_run(where)
    if trial is None:
        return run if (run / "run.json").is_file() else where  # a run alone: its story says to name a trial
    if not (run / "run.json").is_file():
        fail(f"{where}: no such run (give its folder, or its id as `reclaim runs` lists it)")
    if "/" in trial or trial in ("", ".", ".."):
        fail(f"{trial}: not a trial id; give one as `reclaim report {where} --trials` lists it")
    if not (run / "trials" / trial).is_dir():
        ids = sorted(p.name for p in (run / "trials").iterdir() if p.is_dir()) if (run / "trials").is_dir() else []
        fail(f"run {run.name} has no trial {trial}" + (f" (its trials: {ids[0]}, ...; `reclaim report "
                                                        f"{where} --trials` lists them)" if ids else ""))
    return run / "trials" / trial


def show(
    where: Annotated[Path, typer.Argument(metavar="RUN", help=(
        "A run: its folder, or its id as `reclaim runs` lists it. Alone: a trial's folder, RUN_DIR/trials/ID."))],
    trial: Annotated[Optional[str], typer.Argument(
        metavar="TRIAL", help="The trial's id, as `reclaim report RUN --trials` lists it.", show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print the story as JSON instead.")] = False,
) -> None:
    """Tell one trial's story: task and target, the commands run with exit codes and durations,
    budget used, the re-execution, and the verdict with its reason, flags and cited events."""
    try:
        story = trial_story(trial_folder(where, trial))
    except NotATrial as e:
        fail(str(e))
    if json_out:
        typer.echo(story.model_dump_json(indent=2))
        return
    _print_story(story)
