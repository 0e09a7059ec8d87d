"""Preflight: every option, agent, judge and format checked, every agent's prerequisites probed,
before the first trial starts: a mistake costs seconds, never a run or a wrong figure.

``check`` raises ``PreflightError`` naming each problem and its fix; what is merely worth knowing
(a baseline that will skip some tasks) comes back as warnings. ``describe`` is ``--dry-run``'s plan.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass

from reclaim import errors
from reclaim.agents import TOOLS, availability, label_problems, make_agent, split_label
from reclaim.gateway import Upstreams
from reclaim.spec import Task
from reclaim.spec.overview import overview, status
from reclaim.store import agent_label

PROBE_TIMEOUT_S = 10.0
NEEDS_WEAKENED = ("overclaim", "partial")
# protocol -> (the Upstreams field, its flag, its variable, the key's variable)
UPSTREAM = {
    "openai": ("openai_base_url", "--openai-base-url", "OPENAI_BASE_URL", "OPENAI_API_KEY"),
    "anthropic": ("anthropic_base_url", "--anthropic-base-url", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
    "gemini": ("gemini_base_url", "(no flag)", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY"),
}


class PreflightError(errors.PreflightError):
    """The run cannot start; the message lists every problem found, each with its fix."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("the run was not started:\n" + "\n".join(f"  - {p}" for p in problems))


def check_format(fmt: str) -> str | None:
    from reclaim.report import FORMATS

    if fmt not in FORMATS:
        return f"--format {fmt}: unknown report format; choose one of {', '.join(FORMATS)}"
    return None


def model_protocol(agent: str) -> str | None:
    """The protocol a model-calling agent speaks, or None for an agent that needs no model of ours."""
    spec = split_label(agent)[1]
    name = spec.partition(":")[0]
    if name in TOOLS:
        return TOOLS[name].protocol
    if name == "llm":
        return getattr(getattr(make_agent(spec), "options", None), "protocol", "openai")
    return None


@dataclass
class Probe:
    url: str
    ok: bool
    problem: str = ""
    models: list[str] | None = None


def probe_upstream(protocol: str, upstreams: Upstreams) -> Probe:
    """GET the upstream's model list with the key the gateway will use; the fix in words if it fails."""
    field, flag, var, key_var = UPSTREAM[protocol]
    base = getattr(upstreams, field).rstrip("/")
    key = os.environ.get(key_var, "") or (os.environ.get("GOOGLE_API_KEY", "") if protocol == "gemini" else "")
    headers = {"Accept": "application/json"}
    if protocol == "openai":
        url = f"{base}/models"
        if key:
            headers["Authorization"] = f"Bearer {key}"
    elif protocol == "anthropic":
        url = f"{base}/v1/models"
        headers |= {"x-api-key": key, "anthropic-version": "2023-06-01"}
    else:
        url = f"{base}/v1beta/models"
        headers["x-goog-api-key"] = key
    where = f"set {flag} or ${var}" if flag.startswith("--") else f"set ${var}"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=PROBE_TIMEOUT_S) as r:
            body = r.read(2_000_000)
    except urllib.error.HTTPError as e:
        if e.code in (401, 403):
            how = f"${key_var} is not set" if not key else f"it refused the key in ${key_var}"
            return Probe(url, False, f"the {protocol} upstream {url} answered HTTP {e.code}: {how}; "
                                     f"set ${key_var} to a valid key")
        return Probe(url, False, f"the {protocol} upstream {url} answered HTTP {e.code} to a model list; "
                                 f"is it the right endpoint? {where}")
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", None) or e
        reason = getattr(reason, "strerror", None) or reason
        return Probe(url, False, f"the {protocol} upstream {url} cannot be reached ({reason}); {where}"
                                 + ("" if key else f", and ${key_var} for its key"))
    try:
        data = json.loads(body)
        listed = [str(m.get("id") or m.get("name", "")).removeprefix("models/")
                  for m in (data.get("data") or data.get("models") or []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        listed = None
    return Probe(url, True, models=listed)


def check(opts, tasks: list[Task]) -> list[str]:
    """Every problem of the plan at once (PreflightError), else the warnings worth printing."""
    problems: list[str] = list(label_problems(opts.agents))
    warnings: list[str] = []
    protocols: dict[str, list[tuple[str, str | None]]] = {}
    canonical = []
    for a in opts.agents:
        try:
            agent = make_agent(a)
            protocol = model_protocol(a)
        except ValueError as e:
            problems.append(f"--agent {a}: {e}")
            continue
        name, spec = split_label(a)
        if (tool := TOOLS.get(spec.partition(":")[0])) is not None:
            ok, why = availability(tool)
            if not ok:  # checked again in each trial (a Slurm node may lack it): error there, never a failure
                problems.append(f"--agent {a}: {why}")
        if hasattr(agent, "canonical"):  # its host paths absolute: the same program wherever a trial runs
            canonical.append((f"{name}=" if name else "") + agent.canonical())
        else:
            canonical.append(a)
        if protocol is not None:
            model = getattr(agent, "model", None) or opts.model
            if not model:
                problems.append(f"--agent {a} calls a model, and none was given: add --model NAME "
                                f"(or give this agent its own: '{spec.partition(':')[0]}:model=NAME')")
            protocols.setdefault(protocol, []).append((a, model))
        lacking = [t.id for t in tasks if t.spec.reference is None]
        if spec.partition(":")[0] == "reference" and lacking:  # it runs the task's reference: none, nothing to run
            problems.append(f"--agent {a} runs each task's reference solution, and {len(lacking)} task(s) have "
                            f"none (reference: null): {', '.join(lacking)}; leave them out (--task), or drop "
                            "this baseline")
        if spec.partition(":")[0] in NEEDS_WEAKENED:
            lacking = [t.id for t in tasks if t.spec.reference is None or t.spec.reference.weakened is None]
            if lacking:  # skipped there, and said so in the report: honest, so a warning, not a refusal
                every = " (every task of this run)" if len(lacking) == len(tasks) else ""
                warnings.append(f"--agent {a} needs reference.weakened; it will be skipped on {len(lacking)} "
                                f"task(s) without one{every}: {', '.join(lacking)}; add reference.weakened "
                                "to the task, or leave this baseline out")
    for protocol, agents in protocols.items():
        p = probe_upstream(protocol, opts.upstreams)
        if not p.ok:
            problems.append(f"--agent {', '.join(a for a, _ in agents)}: {p.problem}")
            continue
        for model in sorted({m for _, m in agents if m}):
            if p.models and model not in p.models:
                warnings.append(f"model {model} is not in the model list of {p.url} "
                                f"({len(p.models)} listed); calls for it may fail")
    if problems:
        raise PreflightError(problems)
    opts.agents = canonical
    return warnings


def describe(opts, tasks: list[Task], judge: str, sandbox: str) -> list[str]:
    """--dry-run: what the run would do, in lines, without doing it."""
    from reclaim.runner.resources import time_limit

    agents = [agent_label(a) + ("" if agent_label(a) == a else f" ({a})") for a in opts.agents]
    n = len(tasks) * len(opts.agents) * opts.seeds
    lines = [f"{n} trial{'s' * (n != 1)}: {len(tasks)} task{'s' * (len(tasks) != 1)} × "
             f"{len(opts.agents)} agent{'s' * (len(opts.agents) != 1)} × {opts.seeds} seed{'s' * (opts.seeds != 1)}, "
             f"{opts.jobs} at once",
             f"agents: {', '.join(agents)}" + (f"; model {opts.model}" if opts.model else ""),
             f"sandbox: {sandbox}; judge: {judge}; executor: {opts.executor}",
             "tasks (level, wall-clock budget, GPU-hours; area; reference verified or not):"]
    for t in sorted(tasks, key=lambda t: t.spec.level.rank):
        b = t.spec.budget
        extra = ((f", {b.gpus} GPU(s)" if b.gpus else "")
                 + (f", {b.model_tokens} model tokens" if b.model_tokens else ""))
        area = f"; {t.spec.area}" if t.spec.area else ""
        lines.append(f"  {t.id}  {t.spec.level.value}  {time_limit(b, opts.budget_scale):g} s, "
                     f"{b.gpu_hours:g} GPU-h{extra}{area}; {status(t)}")
    return lines + overview(tasks).lines()
