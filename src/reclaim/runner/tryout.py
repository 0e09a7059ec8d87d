"""`reclaim agents try NAME`: one real agent on one task, driven by the scripted model, for free.

The scripted model (agents/scripted) plays the task's reference solution through whichever shell
tool the agent offers (to one that offers none, aider, it writes it in the agent's edit format);
everything else is a real run: the agent's own program in the sandbox, its calls through the
gateway, the re-executions and the judge. What comes back says whether the wiring holds: the
outcome, every model call (protocol, streaming, the tokens the gateway metered against those the
scripted model served: they must agree), the models refused, and the commands the agent ran.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from reclaim.agents import TOOLS
from reclaim.agents.scripted import Player, ScriptedModel, Served, Solutions, solution_steps, solution_text
from reclaim.gateway import Upstreams
from reclaim.runner.run import RunOptions, execute, plan_run
from reclaim.store import RunDir, TrialRecord
from reclaim.suites import bundled
from reclaim.trace import CommandFinished, ModelCall, Note, ShellCommand, read_trace

TRY_TASK = "reimplement-huber-irls"
SCRIPTED = "scripted-model"
KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


@dataclass
class Tried:
    """What one tried trial showed."""

    run: RunDir
    record: TrialRecord
    calls: list[ModelCall] = field(default_factory=list)
    served: list[Served] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    transcript: int = 0
    warnings: list[str] = field(default_factory=list)
    keys_upstream: set[str] = field(default_factory=set)
    """The credentials the scripted model was sent (the gateway's provider key, never a trial's token)."""

    @property
    def trial_dir(self) -> Path:
        return self.run.trial_dir(self.record.trial_id)

    @property
    def metered(self) -> tuple[int, int]:
        ok = [c for c in self.calls if c.status == 200]
        return sum(c.tokens_in for c in ok), sum(c.tokens_out for c in ok)

    @property
    def served_tokens(self) -> tuple[int, int]:
        return sum(s.tokens_in for s in self.served), sum(s.tokens_out for s in self.served)

    @property
    def wired(self) -> bool:
        """The agent reproduced, every call was metered as served, none refused."""
        return (self.record.outcome is not None and self.record.outcome.value == "reproduced"
                and self.metered == self.served_tokens and len(self.served) == sum(c.status == 200 for c in self.calls)
                and not any(c.status == 403 for c in self.calls))


@contextmanager
def _scripted_keys() -> Iterator[None]:
    """The provider keys the gateway sends upstream, while the upstream is the scripted model:
    a user's real keys stay out of it."""
    saved = {k: os.environ.get(k) for k in KEYS}
    os.environ.update(dict.fromkeys(KEYS, "scripted-key"))
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def try_agent(name: str, *, task: str = TRY_TASK, suite: Path | None = None, sandbox: str = "bwrap",
              runs_root: Path | None = None, model: str = SCRIPTED) -> Tried:
    """Run agent ``name`` on ``task`` against the scripted model; return what the trial showed."""
    suite = suite or bundled()["demo"]
    tool = TOOLS.get(name)
    player = Player(solution_steps(suite / task), finish=list(tool.finish) if tool else [],
                    text=solution_text(suite / task, tool.text) if tool and tool.text else "")
    with ScriptedModel() as upstream, _scripted_keys():
        upstream.always(Solutions({task: player}), n=400)
        rd = plan_run(RunOptions(suite=suite, agents=[name], tasks=[task], sandbox=sandbox, runs_root=runs_root,
                                 model=model, jobs=1, max_retries=0,
                                 upstreams=Upstreams(openai_base_url=upstream.url, anthropic_base_url=upstream.base,
                                                     gemini_base_url=upstream.base)))
        (rec,) = execute(rd)
        served = list(upstream.served)
        keys = {(r["auth"].removeprefix("Bearer ") or r["x-api-key"] or r["x-goog-api-key"])
                for r in upstream.requests if r["body"]}
    events = read_trace(rd.trial_dir(rec.trial_id) / "trace.jsonl")
    tried = Tried(rd, rec, served=served, keys_upstream=keys)
    for e in events:
        if isinstance(e, ModelCall):
            tried.calls.append(e)
        elif isinstance(e, ShellCommand):
            tried.commands.append(" ".join(e.cmd) if isinstance(e.cmd, list) else str(e.cmd))
        elif isinstance(e, Note) and e.message.startswith("[untrusted transcript]"):
            tried.transcript += 1
        elif isinstance(e, Note) and e.level == "warning":
            tried.warnings.append(e.message)
        elif isinstance(e, CommandFinished) and e.phase == "agent" and e.exit_code not in (0, None):
            tried.warnings.append(f"the agent's program exited {e.exit_code}: {e.stderr[-300:]}")
    return tried
