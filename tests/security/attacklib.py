"""The attack agents and what the suite needs to run them: their definitions, read from each file's
header, and a fake model provider (the gateway's upstream and the LLM judge's endpoint) that records
every request it gets, judge prompts included.

An attack is one executable under attacks/, run as ``command:PATH`` inside the sandbox. Its header:

    # class: N short name           the issue's class (1-8)
    # tries: what it attempts       (may continue on lines indented by two spaces)
    # trace: TEXT                   must appear in the trace's harness-recorded events (repeatable)
    # batch: NAME                   which `reclaim run` it shares (default main)
    # check: NAME                   an extra check of its own (repeatable), see attackrun.CHECKS
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
ATTACKS_DIR = HERE / "attacks"
REPO = HERE.parents[1]
SUITE = "demo"
TASK = "run-logreg-sensor-faults"  # a short demo task with code, data and weights to withhold
VICTIM = "fabricate"  # a baseline in the main batch whose record attacks may try to forge
JUDGE_MODEL = "reclaim-fake-judge"
PAYLOAD_TAG = b"reclaim_attack"  # in every file an attack tries to plant or change on the host
EVIDENCE_DIR = Path("/var/tmp/reclaim-attack-evidence")  # where host-side payloads leave proof
STREAM_USAGE = (1000, 500)  # tokens the fake provider's streamed answers report at their very end

# name -> (timeout of the whole `reclaim run`, whether to judge again with the LLM judge)
BATCHES = {
    "main": (1500, True),
    "bounded": (1500, True),
    "core": (300, True),
    "sysctl": (300, True),
    "budget": (300, True),
    "hang": (480, True),
    "disk": (400, False),
}
DISK_TMPFS_MB = 1024  # the disk-fill batch's run folder: a tmpfs of its own, never the shared disk


@dataclass(frozen=True)
class Attack:
    id: str
    path: Path
    klass: int
    tries: str
    traces: tuple[str, ...]
    batch: str = "main"
    checks: tuple[str, ...] = ()

    @property
    def agent(self) -> str:
        return f"command:{self.path}"

    @property
    def trial_id(self) -> str:
        return f"{TASK}__command-{self.id}__0"

    @property
    def inside(self) -> str:
        """The program's path inside the sandbox: how its trial is recognised in a judge prompt."""
        return f"/run/reclaim-agent/{self.path.name}"

    def __str__(self) -> str:
        return self.id


def _header(path: Path) -> Attack:
    fields: dict[str, list[str]] = {}
    last = None
    for line in path.read_text().splitlines()[1:]:
        if not line.startswith("#"):
            break
        if m := re.match(r"#\s(\w+):\s?(.*)$", line):
            last = m.group(1)
            fields.setdefault(last, []).append(m.group(2).strip())
        elif last and line.startswith("#   "):
            fields[last][-1] += " " + line[1:].strip()
    missing = [k for k in ("class", "tries", "trace") if k not in fields]
    if missing:
        raise ValueError(f"{path}: header lacks {', '.join(missing)}")
    batch = fields.get("batch", ["main"])[0]
    if batch not in BATCHES:
        raise ValueError(f"{path}: unknown batch '{batch}'; known: {', '.join(BATCHES)}")
    return Attack(id=path.stem, path=path, klass=int(fields["class"][0].split()[0]), tries=fields["tries"][0],
                  traces=tuple(fields["trace"]), batch=batch, checks=tuple(fields.get("check", [])))


def load_attacks() -> list[Attack]:
    attacks = [_header(p) for p in sorted(ATTACKS_DIR.iterdir()) if p.is_file() and p.suffix in (".sh", ".py")]
    ids = [a.id for a in attacks]
    assert len(set(ids)) == len(ids), "attack ids must be unique"
    return attacks


# --- the fake provider ------------------------------------------------------------------------


@dataclass
class Request:
    path: str
    model: str
    stream: bool
    body: str
    batch: str


@dataclass
class FakeProvider:
    """An OpenAI/Anthropic-speaking server on 127.0.0.1: slow streams that end with a usage chunk,
    plain answers, and a judge model that always answers not_reproduced."""

    requests: list[Request] = field(default_factory=list)
    batch: str = ""

    def start(self) -> FakeProvider:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def prompts(self, batch: str) -> list[str]:
        return [r.body for r in self.requests if r.batch == batch and r.model == JUDGE_MODEL]


READING = {"outcome": "not_reproduced", "measured_value": None, "citations": [], "computed_by": "unclear",
           "rationale": "The fake judge of the attack suite always says not_reproduced.", "flags": []}


def _handler(owner: FakeProvider):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # no keep-alive: a stream ends when the connection closes

        def log_message(self, *args):
            pass

        def do_GET(self):
            self._json({"object": "list", "data": [{"id": "fake", "object": "model"}]})

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                body = {}
            body = body if isinstance(body, dict) else {}
            model, stream = str(body.get("model", "")), bool(body.get("stream"))
            owner.requests.append(Request(self.path, model, stream, raw.decode("utf-8", "replace"), owner.batch))
            if self.path.endswith("/messages"):
                return self._json({"id": "msg_1", "type": "message", "role": "assistant", "model": model,
                                   "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                                   "usage": {"input_tokens": 10, "output_tokens": 2}})
            if model == JUDGE_MODEL:
                return self._json(_chat(model, json.dumps(READING), (3000, 200)))
            if stream:
                return self._stream(model)
            self._json(_chat(model, "ok", (10, 2)))

        def _json(self, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, model: str) -> None:
            head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": int(time.time()), "model": model}
            try:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for i in range(8):
                    delta = {"index": 0, "delta": {"content": f"word{i} "}, "finish_reason": None}
                    chunk = {**head, "choices": [delta]}
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(0.25)
                usage = {"prompt_tokens": STREAM_USAGE[0], "completion_tokens": STREAM_USAGE[1],
                         "total_tokens": sum(STREAM_USAGE)}
                self.wfile.write(f"data: {json.dumps({**head, 'choices': [], 'usage': usage})}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler


def _chat(model: str, text: str, tokens: tuple[int, int]) -> dict:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": int(time.time()), "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1], "total_tokens": sum(tokens)}}
