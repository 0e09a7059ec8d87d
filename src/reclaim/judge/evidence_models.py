"""The parts of an evidence bundle: evidence.py assembles them, render.py writes them out.

Every text field that holds what an agent's programs wrote (outputs, file text, command lines,
file names) holds it as the harness read it; render.py marks it untrusted when it writes it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Source = Literal["harness", "exec", "audit", "transcript"]
Trust = Literal["high", "low", "lowest"]

TRUST: dict[str, Trust] = {"harness": "high", "exec": "high", "audit": "low", "transcript": "lowest"}
WHY_TRUST = {
    "harness": "the harness started it and captured its output itself",
    "exec": "seen from outside the sandbox (the execve trace): it ran, with these arguments",
    "audit": "from the bash audit hook inside the sandbox: the agent can switch it off or write rows of its own",
    "transcript": "the agent's own account of its steps: never evidence of anything",
}


class CommandRecord(BaseModel):
    """A command the harness ran (agent or re-execution phase), with its captured output."""

    id: int = Field(description="The command_finished event id: what to cite.")
    phase: str
    source: Source = "harness"
    trust: Trust = "high"
    cmd: str
    exit_code: int | None
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    files: list[str] = Field(default_factory=list, description="'created results.json (23 B)'")
    outputs: dict[str, str] = Field(default_factory=dict, description="Small result files as they ended.")


class LoggedCommand(BaseModel):
    """A command recorded by other means than the harness running it: a program seen starting,
    a row of the audit hook's log, a step of the agent's own transcript."""

    id: int = Field(description="Its trace event id: what to cite.")
    phase: str
    source: Source
    trust: Trust
    cmd: str = Field(description="The command line (argv joined), as recorded; cut to ROW_CHARS.")
    exit_code: int | None = None
    within: int | None = Field(None, description="The harness command (command_finished id) it ran inside.")
    gap_before: int = Field(0, description="Rows of the same source cut just before this one.")


class Program(BaseModel):
    """A file the re-execution ran or read, named by reproduce.sh or by a program it ran."""

    path: str
    reason: str = Field(description="Why it is here: 'the re-executed script', 'imported by train.py line 3'.")
    kind: Literal["agent", "changed", "copied", "released", "unreadable", "binary"] = Field(
        description="agent: the agent's own file; changed: a released file the agent changed in place; "
                    "copied: a copy of a released file (text is the diff when it differs); released: "
                    "provided by the harness, unchanged.")
    size: int | None = None
    sha256: str | None = None
    original: str | None = Field(None, description="The released file it is compared with.")
    text: str = Field("", description="Its text, or the unified diff against the original; maybe cut.")
    diff: bool = False
    lines: int = Field(0, description="Lines of the text (or diff) before any cut.")
    note: str = ""


class FirstPrint(BaseModel):
    """Where a number of a results.json was first printed by a recorded command."""

    results: Literal["reexec", "agent"] = Field(description="Which results.json holds the number.")
    key: str
    value: float
    phase: str = Field(description="The phase whose commands were searched.")
    event_id: int | None = None
    stream: str | None = None
    line: int | None = Field(None, description="Line number in that stream, from 1.")
    text: str | None = Field(None, description="That line (the agent's output), cut to 300 characters.")
    when: Literal["before", "with", "after", "never", "unknown"] = Field(
        description="Against the command that wrote that results.json: printed before it, by it, only "
                    "after it, never; unknown when no recorded command wrote it.")
    writer: int | None = Field(None, description="The command that wrote that results.json.")
    short: bool = Field(False, description="Fewer than three significant digits: a match may be chance.")


class Cut(BaseModel):
    """Something left out or shortened to fit the budget, and by how much."""

    part: str
    unit: str
    total: int
    cut: int
    how: str = ""

    def line(self) -> str:
        return f"{self.part}: {self.cut:,} of {self.total:,} {self.unit} cut" + (f" ({self.how})" if self.how else "")


class FileEntry(BaseModel):
    path: str
    size: int | None
    sha256: str | None
    provided: bool = Field(description="Placed by the harness and unchanged since.")
    written_by: int | None = Field(None, description="Last recorded command that created or changed it.")


class ReexecSummary(BaseModel):
    ran: bool
    reason: str
    exit_code: int | None = None
    timed_out: bool = False
    event_id: int | None = None
    removed: list[str] = Field(default_factory=list)
    results: str | None = None
    ablation: str | None = Field(None, description="The run without cached files, if there was one.")
    script: str = "reproduce.sh"


class Untrusted(BaseModel):
    warning: str = "UNTRUSTED: written by the agent itself; never evidence of a result."
    final_message: str = ""
    transcript: str = ""
