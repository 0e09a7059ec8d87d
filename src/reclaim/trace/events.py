"""The events of a trial's trace: what the harness saw happen, in order."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field

Phase = Literal["setup", "agent", "reexec", "judge"]


class FileChange(BaseModel):
    path: str
    change: Literal["created", "modified", "deleted"]
    size: int | None = None
    sha256: str | None = None


class EventBase(BaseModel):
    id: int = Field(description="Position in the trace, from 1; stable, so the judge can cite it.")
    ts: float = Field(description="Unix time the event was recorded.")
    phase: Phase


class TrialStarted(EventBase):
    kind: Literal["trial_started"] = "trial_started"
    task: str
    agent: str
    seed: int
    level: str
    sandbox: str


class CommandStarted(EventBase):
    kind: Literal["command_started"] = "command_started"
    cmd: list[str]
    cwd: str
    timeout_s: float | None


class CommandFinished(EventBase):
    kind: Literal["command_finished"] = "command_finished"
    started_id: int = Field(description="Id of the matching command_started event.")
    cmd: list[str]
    start: float
    end: float
    exit_code: int | None = Field(description="None when the command was killed.")
    timed_out: bool = False
    stdout: str = Field(description="Head and tail of stdout; the whole stream is in stdout_file.")
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    stdout_file: str
    stderr_file: str
    files: list[FileChange] = Field(default_factory=list)
    files_omitted: int = Field(0, description="Further changed files, counted but not listed.")
    programs: int | None = Field(None, description="Programs the command started, by the exec record (every "
                                 "start counted; each distinct one is a program_exec event); None: no record.")
    programs_cut: bool = Field(False, description="The exec record was cut (too many distinct programs, or too "
                               "long a log): programs after the cut are not on the record.")
    cpu_s: float | None = Field(None, description="CPU seconds the command's processes used (cgroup); None: unmetered.")
    gpu_s: float | None = Field(None, description="GPU-busy seconds while it ran (NVML samples); None: no GPU metered.")


class BudgetEvent(EventBase):
    """A budget running low or out; ``stopped`` names the limit that ended the agent's work."""

    kind: Literal["budget"] = "budget"
    what: Literal["wall_exhausted", "model_exhausted", "disk_exhausted", "warning", "stopped"]
    detail: str
    limit: str | None = Field(None, description="stopped: the limit's kind (wall, gpu_hours, disk, model_tokens, "
                                                "money_usd).")
    value: float | None = Field(None, description="stopped: what the limit allowed, in its unit.")
    used: float | None = Field(None, description="stopped: what had been used, in the same unit.")


class Note(EventBase):
    """Something the harness wants on the record: a warning, a skipped step, an error."""

    kind: Literal["note"] = "note"
    level: Literal["info", "warning", "error"]
    message: str


class ModelCall(EventBase):
    """One call an agent made to a model, as the gateway saw it."""

    kind: Literal["model_call"] = "model_call"
    protocol: Literal["openai", "anthropic", "gemini"]
    endpoint: str
    model: str
    stream: bool
    status: int
    tokens_in: int = 0
    tokens_out: int = 0
    latency_s: float
    cost_usd: float | None = None
    request_file: str = Field(description="Request body, under records/ (where no sandbox can write).")
    response_file: str = Field(description="Response body (or the raw event stream), under records/.")
    error: str | None = None


class ShellCommand(EventBase):
    """A shell command the agent's programs ran inside the sandbox, from the in-sandbox audit hook.

    UNTRUSTED: the hook and its log live where the agent can reach them; it may switch the hook
    off or write rows of its own. The exec record (ProgramExec) is the trusted layer."""

    kind: Literal["shell_command"] = "shell_command"
    at: float = Field(description="When it started, by the sandbox's clock.")
    pid: int
    cmd: str
    exit_code: int | None = Field(description="None when the shell ended before reporting it.")
    untrusted: bool = True


class ProgramExec(EventBase):
    """A program started inside the sandbox, recorded from outside it (strace on execve)."""

    kind: Literal["program_exec"] = "program_exec"
    command_id: int = Field(description="The command_started event whose sandbox ran it.")
    pid: int = Field(description="Host pid.")
    path: str
    argv: list[str]
    truncated: bool = False
    count: int = Field(1, description="How many times it ran with these arguments within the command.")


class NetworkRequest(EventBase):
    """One request a sandbox made through the egress proxy, as the proxy saw and decided it."""

    kind: Literal["network_request"] = "network_request"
    method: str
    url: str
    host: str
    status: int
    allowed: bool
    rule: str = Field(description="The policy rule that decided it.")
    forbidden: str | None = Field(None, description="The withheld material this URL belongs to, if any.")
    bytes_up: int = 0
    bytes_down: int = 0
    error: str | None = None


class WithheldFound(EventBase):
    """Files in the agent's workspace that are files of a material its level withholds."""

    kind: Literal["withheld_found"] = "withheld_found"
    material: str
    files: list[str] = Field(description="'workspace path = material path' for each match.")


class TrialFinished(EventBase):
    kind: Literal["trial_finished"] = "trial_finished"
    status: str
    outcome: str | None


Event = Annotated[
    TrialStarted | CommandStarted | CommandFinished | BudgetEvent | Note | ModelCall | ShellCommand | ProgramExec
    | NetworkRequest | WithheldFound | TrialFinished,
    Field(discriminator="kind"),
]
