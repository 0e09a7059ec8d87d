"""`reclaim judge` and `reclaim judge-eval`, and the judge options every command shares."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from pydantic import ValidationError
from pydantic_core import ErrorDetails
from rich.console import JustifyMethod
from rich.markup import escape
from rich.table import Table

from reclaim.cli.common import console, fail
from reclaim.judge import JUDGES, JudgeConfig, make_judge

JudgeName = Annotated[str, typer.Option("--judge", help=f"Judge: {', '.join(JUDGES)}.")]
JudgeModel = Annotated[Optional[str], typer.Option(help="Model of the llm judge, e.g. gpt-4.1-mini.")]
JudgeBaseUrl = Annotated[Optional[str], typer.Option(
    help="OpenAI-compatible endpoint (vLLM, llama.cpp, Ollama: http://localhost:8000/v1).")]
JudgeSamples = Annotated[int, typer.Option(help="Answers asked per trial; the majority decides.")]
JudgeTokens = Annotated[int, typer.Option(help="Token budget of the evidence bundle.")]
JudgePrices = Annotated[Optional[Path], typer.Option(help="YAML: model -> {input, output} USD per 1M tokens.")]
JudgeCache = Annotated[Optional[Path], typer.Option(help="Verdict cache folder (default ~/.cache/reclaim/judge).")]


_FLAGS = {"name": "--judge", "model": "--judge-model", "base_url": "--judge-base-url", "samples": "--judge-samples",
          "max_evidence_tokens": "--judge-max-tokens", "prices_file": "--judge-prices", "cache_dir": "--judge-cache"}


def _option_problem(x: ErrorDetails) -> str:
    field = str(x["loc"][0]) if x.get("loc") else ""
    flag = _FLAGS.get(field, field)
    if field == "name":
        return f"--judge {x.get('input')!r}: unknown judge; choose one of {', '.join(JUDGES)}"
    return f"{flag} {x.get('input')!r}: {x.get('msg', 'not accepted')}"


def judge_config(name: str, model: str | None, base_url: str | None, samples: int, tokens: int,
                 prices: Path | None, cache: Path | None) -> JudgeConfig:
    try:
        config = JudgeConfig(name=name, model=model, base_url=base_url, samples=samples,
                             max_evidence_tokens=tokens, prices_file=str(prices) if prices else None,
                             cache_dir=str(cache) if cache else None)
        make_judge(config)  # fails now, clearly, on a missing model or key
    except ValidationError as e:  # in words: the option and what it takes, no pydantic link
        say = "; ".join(_option_problem(x) for x in e.errors(include_url=False))
        fail(say)
    except ValueError as e:
        fail(f"judge: {e}")
    return config


def judge(
    run_dir: Annotated[Path, typer.Argument(help="A run folder, or its run id as `reclaim runs` lists it.")],
    judge: JudgeName = "rules", judge_model: JudgeModel = None, judge_base_url: JudgeBaseUrl = None,
    judge_samples: JudgeSamples = 3, judge_max_tokens: JudgeTokens = 30_000,
    judge_prices: JudgePrices = None, judge_cache: JudgeCache = None,
    jobs: Annotated[int, typer.Option(help="Trials judged at once.")] = 4,
) -> None:
    """Judge the finished trials of a run again; verdicts go to verdicts/<judge>.json beside the others."""
    from reclaim.runner.rejudge import rejudge
    from reclaim.store import RunDir, find_run

    config = judge_config(judge, judge_model, judge_base_url, judge_samples, judge_max_tokens,
                          judge_prices, judge_cache)
    rd = RunDir(find_run(run_dir))
    try:
        rd.spec()
    except FileNotFoundError as e:
        fail(str(e))
    j = make_judge(config)
    results = rejudge(rd, j, jobs=jobs, done=lambda rec, v: console.print(
        f"  {rec.trial_id:<48} {v.outcome.value}" + (" (cached)" if v.cache_hit else ""), highlight=False))
    spent = sum(v.cost_usd or 0 for _, v in results)
    tokens = sum(v.tokens_in + v.tokens_out for _, v in results)
    console.print(f"{len(results)} trials judged by {j.label}; {tokens} tokens, ${spent:.4f}. "
                  f"Report: reclaim report {run_dir} --judge {j.label}")


def judge_eval(
    gold_dir: Annotated[Path, typer.Argument(help="Gold set: labels.yaml and trials/.")] = Path("gold/demo"),
    judge: JudgeName = "rules", judge_model: JudgeModel = None, judge_base_url: JudgeBaseUrl = None,
    judge_samples: JudgeSamples = 3, judge_max_tokens: JudgeTokens = 30_000,
    judge_prices: JudgePrices = None, judge_cache: JudgeCache = None,
    jobs: Annotated[int, typer.Option(help="Trials judged at once.")] = 4,
    format: Annotated[str, typer.Option("--format", help="table or json.")] = "table",
) -> None:
    """Score a judge against gold-labelled trials: accuracy, F1, kappa, confusion, honest trials disqualified,
    adversarial ones reproduced, per-number agreement, cost."""
    from reclaim.judge.evaluate import evaluate

    config = judge_config(judge, judge_model, judge_base_url, judge_samples, judge_max_tokens,
                          judge_prices, judge_cache)
    if not (gold_dir / "labels.yaml").is_file():
        fail(f"{gold_dir / 'labels.yaml'} not found; pass a gold set folder")
    res = evaluate(gold_dir, make_judge(config), jobs=jobs)
    if format == "json":
        sys.stdout.write(res.model_dump_json(indent=2) + "\n")
        return
    console.print(f"judge [bold]{res.judge}[/] on {res.gold}: {res.n} trials")
    console.print(f"accuracy {res.accuracy:.3f} · precision {res.precision:.3f} · recall {res.recall:.3f} · "
                  f"F1 {res.f1:.3f} · Cohen's kappa {res.kappa:.3f}", highlight=False)
    cost = "n/a" if res.mean_cost_usd is None else f"${res.mean_cost_usd:.5f}"
    console.print(f"mean tokens per verdict {res.mean_tokens:.0f} · mean cost per verdict {cost}", highlight=False)
    table = Table(title="confusion (rows: gold, columns: judged)")
    table.add_column("gold \\ judged")
    for label in res.labels:
        table.add_column(label, justify="right")
    for g in res.labels:
        table.add_row(g, *(str(res.confusion[g][p]) for p in res.labels))
    console.print(table)
    console.print(f"{res.kinds.get('honest', 0)} honest, {res.kinds.get('adversarial', 0)} adversarial trials: "
                  f"honest disqualified {res.honest_disqualified} · adversarial reproduced "
                  f"{res.adversarial_reproduced} (aim: 0 and 0)", highlight=False)
    for what, trials in (("honest, disqualified", res.honest_disqualified_trials),
                         ("adversarial, reproduced", res.adversarial_reproduced_trials)):
        for t in trials:
            console.print(f"  ✗ {t}: {what}", highlight=False)
    if res.metric_agreement:
        per = Table(title="per-number agreement (gold per-metric labels vs. the verdicts' held flags)")
        columns: list[tuple[str, JustifyMethod]] = [("metric", "left"), ("trials", "right"), ("agree", "right"),
                                                    ("rate", "right"), ("not judged", "right"),
                                                    ("disagreements", "left")]
        for col, just in columns:
            per.add_column(col, justify=just)
        for name, m in res.metric_agreement.items():
            per.add_row(escape(name), str(m.n), str(m.agree), f"{m.rate:.3f}", str(len(m.missing)),
                        escape(", ".join(m.disagreements)) or "—")
        console.print(per)
    for d in res.disagreements:
        console.print(f"  ✗ {d.trial}: gold {d.label}, judged {d.predicted} — {d.rationale}", highlight=False)
    if not res.disagreements:
        console.print("no disagreements")
