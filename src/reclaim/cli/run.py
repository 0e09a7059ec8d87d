"""`reclaim run`: plan a run, run its trials with a progress display, print the report."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.panel import Panel
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from reclaim.agents import AGENTS
from reclaim.cli.common import console, err, fail
from reclaim.cli.judging import (
    JudgeBaseUrl,
    JudgeCache,
    JudgeModel,
    JudgeName,
    JudgePrices,
    JudgeSamples,
    JudgeTokens,
    judge_config,
)
from reclaim.cli.nextsteps import next_steps
from reclaim.cli.reports import show_report
from reclaim.cli.resume import refuse_plan_options, run_to_resume
from reclaim.failpoints import failpoint
from reclaim.gateway import Upstreams
from reclaim.report import FORMATS
from reclaim.report.terminal import OUTCOME_STYLE
from reclaim.runner.attempts import needs_run
from reclaim.runner.preflight import check_format, describe
from reclaim.runner.run import (
    DEFAULT_AGENTS,
    RunOptions,
    check_run,
    execute,
    plan_run,
)
from reclaim.runner.run import Progress as RunProgress
from reclaim.runner.slurm_options import SlurmOptions
from reclaim.sandbox import BACKENDS, backend, check_backend, default_backend
from reclaim.spec import Level
from reclaim.store import MAX_RETRIES, Outcome, RunDir, Status, TrialRecord, trial_id
from reclaim.suites import resolve_suite
from reclaim.words import plural


def pick_sandbox(name: str) -> str:
    if name == "auto":
        name = default_backend()
    elif (why := check_backend(name)) is not None:
        fail(f"sandbox '{name}' cannot run here: {why}")
    warn_sandbox(name)
    return name


def warn_sandbox(name: str) -> None:
    """A backend that must be announced (no isolation) is, loudly, before anything runs."""
    if (warning := backend(name).warning) is not None:
        err.print(Panel(warning, title="WARNING: no sandbox", style="bold red"))


def upstreams(openai_url: str | None, anthropic_url: str | None, prices: Path | None) -> Upstreams:
    given = {k: v for k, v in (("openai_base_url", openai_url), ("anthropic_base_url", anthropic_url)) if v}
    return Upstreams(**given, prices_file=str(prices) if prices else None)


def _progress_display(prog: Progress) -> RunProgress:
    bar = prog.add_task("trials", total=None)

    def planned(total: int, done: int) -> None:
        prog.update(bar, total=total, completed=done)

    def finished(rec: TrialRecord) -> None:
        outcome = rec.outcome.value if rec.outcome else rec.status.value
        style = OUTCOME_STYLE.get(outcome, "")
        prog.console.print(f"  {rec.trial_id:<48} [{style}]{outcome}[/]"
                           + (f"  measured {rec.measured:.4g}" if rec.measured is not None else "")
                           + (f"  [red]{rec.error}[/]" if rec.error else ""), highlight=False)
        prog.advance(bar)

    def retrying(rec: TrialRecord) -> None:
        prog.console.print(f"  {rec.trial_id:<48} [{OUTCOME_STYLE['error']}]error[/], running it again"
                           + (f"  [red]{rec.error}[/]" if rec.error else ""), highlight=False)

    def note(message: str) -> None:
        prog.console.print(f"  [dim]{message}[/]", highlight=False)

    return RunProgress(planned=planned, finished=finished, retrying=retrying, note=note)


def ui_for(fmt: str) -> Console:
    """Where progress goes: stdout beside a table, stderr when stdout carries a machine format."""
    return console if fmt == "table" else err


@contextmanager
def _stopped_as_interrupted() -> Iterator[list[int]]:
    """SIGTERM and SIGHUP (a closed terminal, a cluster ending the driver's own job, a service
    manager stopping it) end a run as Ctrl-C does: running trials stop and stay unfinished, a
    Slurm run's jobs are cancelled, and the run can be resumed. Python's default for both is to die
    at once, leaving a cluster's jobs running. A signal the caller ignores (nohup) stays ignored."""
    got: list[int] = []

    def stop(signum, frame) -> None:
        if not got:  # the first one interrupts; a second while stopping is not a second interrupt
            got.append(signum)
            raise KeyboardInterrupt

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGTERM, signal.SIGHUP)
                if signal.getsignal(sig) is not signal.SIG_IGN}  # nohup's ignored SIGHUP stays ignored
    try:
        yield got
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run_with_display(rd: RunDir, fmt: str, executor: str | None = None) -> None:
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=ui_for(fmt), transient=False) as prog, \
            _stopped_as_interrupted() as signalled:
        try:  # reclaim's own errors end as one line in cli/main.py
            records = execute(rd, _progress_display(prog), executor)
        except KeyboardInterrupt:
            how = f"stopped by {signal.Signals(signalled[0]).name}" if signalled else "interrupted"
            err.print(f"\n{how}; finished trials are kept. Continue with: reclaim run --resume {rd.path}")
            raise typer.Exit(128 + (signalled[0] if signalled else signal.SIGINT)) from None
    ui_for(fmt).print(f"run directory: [bold]{rd.path}[/]", soft_wrap=True)  # a path is never broken
    failpoint("report")
    show_report(rd, fmt, records)
    if fmt == "table":  # machine formats keep stdout to themselves
        console.print()
        for line in next_steps(rd, records):  # a command is never broken: it must paste whole
            console.print(line, highlight=False, markup=False, soft_wrap=line.startswith("  ") and "#" not in line)
    errors = [r for r in records if r.outcome == Outcome.error or r.status == Status.error]
    if errors:  # exit 1: some trials say nothing about their agent; the reasons are in the report
        err.print(f"{len(errors)} trial{'s' * (len(errors) != 1)} ended in error (the harness's or the "
                  f"set-up's, not the agent's); see their reasons above or in trial.json")
        raise typer.Exit(1)
    unfinished = len(rd.spec().trial_keys()) - len([r for r in records if r.done])
    if unfinished:  # exit 1: records that could not be written (a full disk); said above, trial by trial
        err.print(f"{plural(unfinished, 'trial')} left unfinished; once the cause is fixed: "
                  f"reclaim run --resume {rd.path}")
        raise typer.Exit(1)


def run(
    ctx: typer.Context,
    suite: Annotated[Optional[str], typer.Option(help="Suite folder, or the name of a bundled suite.")] = None,
    agent: Annotated[Optional[list[str]], typer.Option(
        help=f"Agent to evaluate, repeatable: {', '.join(AGENTS)}; third-party coding agents by name "
             "(claude-code, codex, ...: 'reclaim agents' lists them and how to install each); "
             "'command:PROGRAM ARGS' runs your own (a script, a folder with run.sh, or 'python3 agent.py'); "
             "NAME=SPEC names it, e.g. mine=command:./a.sh.")] = None,
    level: Annotated[Optional[list[Level]], typer.Option(help="Only tasks posed at this level; repeatable.")] = None,
    task: Annotated[Optional[list[str]], typer.Option(help="Only this task id; repeatable.")] = None,
    seeds: Annotated[int, typer.Option(help="Trials per (task, agent).")] = 1,
    jobs: Annotated[int, typer.Option(help="Trials run at once.")] = 2,
    sandbox: Annotated[str, typer.Option(help=f"auto, {', '.join(BACKENDS)}.")] = "auto",
    judge: JudgeName = "rules", judge_model: JudgeModel = None, judge_base_url: JudgeBaseUrl = None,
    judge_samples: JudgeSamples = 3, judge_max_tokens: JudgeTokens = 30_000,
    judge_prices: JudgePrices = None, judge_cache: JudgeCache = None,
    model: Annotated[Optional[str], typer.Option(
        help="Model for agents that call one (llm), through the gateway.")] = None,
    openai_base_url: Annotated[Optional[str], typer.Option(
        help="Upstream for OpenAI-protocol calls (default $OPENAI_BASE_URL or api.openai.com); "
             "key $OPENAI_API_KEY.")] = None,
    anthropic_base_url: Annotated[Optional[str], typer.Option(
        help="Upstream for Anthropic calls (default api.anthropic.com); key $ANTHROPIC_API_KEY.")] = None,
    prices: Annotated[Optional[Path], typer.Option(help="YAML: model -> {input, output} USD per 1M tokens.")] = None,
    gpus: Annotated[Optional[str], typer.Option(
        help="GPUs: auto (NVML if present), none, nvml, indices like 0,1, or fake:N for dry runs.")] = None,
    budget_scale: Annotated[float, typer.Option(help="Scale every budget, e.g. 0.1 for a cheap trial run.")] = 1.0,
    executor: Annotated[Optional[str], typer.Option(
        help="Where trials run: local (default) or slurm (one job per trial; with --resume, switches).")] = None,
    slurm_partition: Annotated[Optional[str], typer.Option(help="Slurm partition.")] = None,
    slurm_account: Annotated[Optional[str], typer.Option(help="Slurm account.")] = None,
    max_retries: Annotated[int, typer.Option(
        help="Runs again of a trial that ended in a harness error; kept for --resume.")] = MAX_RETRIES,
    image: Annotated[Optional[str], typer.Option(
        help="Container image for --sandbox container, for tasks that name none in environment.image.")] = None,
    offline: Annotated[bool, typer.Option(
        help="Materials only from the cache (reclaim materials fetch SUITE first); nothing is downloaded.")] = False,
    materials_cache: Annotated[Optional[Path], typer.Option(
        help="The materials cache (default $RECLAIM_MATERIALS_CACHE or ~/.cache/reclaim/materials).")] = None,
    run_dir: Annotated[Optional[Path], typer.Option(
        help="Where to keep this run (default RUNS_ROOT/<run_id>); listed in the runs root's index "
             "wherever it lies.")] = None,
    runs_root: Annotated[Optional[Path], typer.Option(
        help="Folder of runs and their index (default $RECLAIM_HOME/runs; RECLAIM_HOME defaults to "
             "~/.local/share/reclaim).")] = None,
    private: Annotated[bool, typer.Option(
        help="Records readable by you alone (files 0600, folders 0700); default 0644/0755, for colleagues.")] = False,
    allow_pending: Annotated[bool, typer.Option(
        help="Also run tasks of a curated draft that no one has reviewed yet (review: pending).")] = False,
    resume: Annotated[Optional[Path], typer.Option(
        help="Finish an interrupted run: its folder, or its id in the runs root. Keeps the run's plan; "
             "takes only --executor, --suite (moved, same tasks) and --format.")] = None,
    format: Annotated[str, typer.Option("--format", help=f"Report format: {', '.join(FORMATS)}.")] = "table",
    dry_run: Annotated[bool, typer.Option(
        help="Check everything (options, agents, upstreams, materials) and print the plan; "
             "run nothing, write nothing.")] = False,
) -> None:
    """Run agents on a suite, judge every trial, and print the report. No arguments: the demo.

    Exit status: 0 every trial finished without error; 1 some ended in error; 2 bad usage or a
    failed preflight (nothing ran); 130 interrupted (resume with --resume)."""
    if (why := check_format(format)) is not None:
        fail(why)
    if resume is not None:
        refuse_plan_options(ctx)
        rd = run_to_resume(resume, suite, runs_root)
        spec = rd.spec()
        warn_sandbox(spec.sandbox)
        left = sum(needs_run(rd, trial_id(*key), spec.max_retries) for key in spec.trial_keys())
        if left:
            ui_for(format).print(f"resuming run [bold]{spec.run_id}[/]: {plural(left, 'trial')} of "
                                 f"{spec.trial_total()} to run" + (f" on executor {executor}" if executor else ""))
        else:
            ui_for(format).print(f"run [bold]{spec.run_id}[/] is complete ({plural(spec.trial_total(), 'trial')}, "
                                 "all finished): nothing to run; its report:")
        run_with_display(rd, format, executor)
        return
    try:
        opts = RunOptions(suite=resolve_suite(suite), agents=agent or list(DEFAULT_AGENTS),
                          seeds=seeds, levels=level or [], tasks=task or [], jobs=jobs,
                          sandbox=pick_sandbox(sandbox), runs_root=runs_root,
                          judge=judge_config(judge, judge_model, judge_base_url, judge_samples,
                                             judge_max_tokens, judge_prices, judge_cache),
                          run_dir=run_dir, private=private, allow_pending=allow_pending, model=model, gpus=gpus,
                          budget_scale=budget_scale,
                          executor=executor or "local", max_retries=max_retries, image=image,
                          offline=offline, materials_cache=materials_cache,
                          slurm=SlurmOptions(partition=slurm_partition, account=slurm_account),
                          upstreams=upstreams(openai_base_url, anthropic_base_url, prices))
        checked = check_run(opts, fetch=not dry_run)
        for w in checked.warnings:
            err.print(f"[yellow]warning:[/] {w}", highlight=False)
        if dry_run:
            for line in describe(opts, checked.tasks, opts.judge.label, opts.sandbox):
                console.print(line, highlight=False)
            for line in checked.presence.lines() if checked.presence else []:
                console.print(line, highlight=False)
            console.print("dry run: nothing found that would stop the run before its first trial; nothing was "
                          "fetched, run or written", highlight=False)
            return
        rd = plan_run(opts, checked)
    except KeyboardInterrupt:
        err.print("\ninterrupted before the first trial; nothing ran")
        raise typer.Exit(130) from None
    spec = rd.spec()
    ui_for(format).print(f"run [bold]{spec.run_id}[/]: suite {spec.suite_name} {spec.suite_version}, "
                  f"{plural(len(spec.tasks), 'task')} × {plural(len(spec.agents), 'agent')} × "
                  f"{plural(len(spec.seeds), 'seed')}, "
                  f"sandbox {spec.sandbox}, judge {spec.judge}, {spec.jobs} at once")
    run_with_display(rd, format)
