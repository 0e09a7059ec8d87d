"""`reclaim view`: reports served on 127.0.0.1, trial pages loaded when a cell is clicked, and
runs of one suite compared side by side.

    /                  one run: its summary; several: the leaderboard and their differences
    /run/N/            run N's summary (its trial pages fetched, not carried)
    /run/N/trial/ID    one trial's page (an HTML fragment)

Only GET, only these paths; a trial id is looked up among the run's own records, never joined
to a path as given."""

from __future__ import annotations

import html
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import unquote, urlsplit

from reclaim.report.aggregate import GROUPS, Report
from reclaim.report.html import asset, environment, summary_html, trial_fragment
from reclaim.report.of_run import report_of
from reclaim.report.story import NotATrial
from reclaim.store import RunDir


@dataclass
class Served:
    rd: RunDir
    report: Report
    trial_ids: set[str] = field(default_factory=set)
    summary: str | None = None


def _load(run_dirs: list[Path], judges: list[str] | None = None) -> list[Served]:
    """One entry per run, or per run and judge (a run judged again, verdicts side by side)."""
    out = []
    for d in run_dirs:
        rd = RunDir(Path(d))
        wanted: list[str | None] = [*judges] if judges else [None]  # None: the run's own verdicts
        for judge in wanted:
            report, records = report_of(rd, judge=judge)
            out.append(Served(rd, report, {r.trial_id for r in records}))
    return out


def compare_html(runs: list[Served]) -> str:
    """The leaderboard of several runs (agent x level rate per run) and, for each paper and agent
    in two or more runs, where their reproduced counts differ."""
    agents = sorted({a for s in runs for b in s.report.levels.values() for a in b.agents})
    board = []
    for level in GROUPS:
        for agent in agents:
            cells = []
            for s in runs:
                row = s.report.levels[level].agents.get(agent) if level in s.report.levels else None
                cells.append(row)
            if any(c is not None for c in cells):
                board.append((level, agent, cells))
    counts = []
    for s in runs:
        c: dict[tuple[str, str], list[int]] = {}
        for t in s.report.trials:
            if t.outcome in ("error", "skipped"):
                continue
            got = c.setdefault((t.task, t.agent), [0, 0])
            got[0] += t.outcome == "reproduced"
            got[1] += 1
        counts.append(c)
    keys = sorted(set().union(*[set(c) for c in counts]))
    diffs = []
    for key in keys:
        seen = [c.get(key) for c in counts]
        present = [x for x in seen if x is not None]
        if len(present) >= 2 and len({x[0] / x[1] for x in present}) > 1:
            diffs.append((key[0], key[1], seen))
    versions = {(s.report.suite, s.report.suite_version) for s in runs}
    return environment().get_template("compare.html.j2").render(
        runs=runs, board=board, diffs=diffs, mixed=len(versions) > 1, css=asset("style.css"))


class _Handler(BaseHTTPRequestHandler):
    runs: ClassVar[list[Served]] = []
    lock = threading.Lock()

    def log_message(self, *args) -> None:  # quiet: the terminal shows the URL, not every request
        pass

    def _send(self, status: int, body: str, kind: str = "text/html; charset=utf-8") -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; "
                         "script-src 'unsafe-inline'; img-src data:; connect-src 'self'")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        parts = [unquote(p) for p in urlsplit(self.path).path.split("/") if p]
        try:
            if not parts:
                if len(self.runs) == 1:
                    return self._send(200, self._summary(0))
                return self._send(200, compare_html(self.runs))
            if parts[0] == "run" and len(parts) >= 2 and parts[1].isdigit() and int(parts[1]) < len(self.runs):
                n = int(parts[1])
                if len(parts) == 2:
                    return self._send(200, self._summary(n))
                if len(parts) == 4 and parts[2] == "trial" and parts[3] in self.runs[n].trial_ids:
                    return self._send(200, trial_fragment(self.runs[n].rd.trial_dir(parts[3])))
            self._send(404, f"<p>not found: {html.escape(self.path[:200])}</p>")
        except NotATrial as e:
            self._send(404, f"<p>{html.escape(str(e))}</p>")

    def _summary(self, n: int) -> str:
        s = self.runs[n]
        with self.lock:
            if s.summary is None:
                s.summary = summary_html(s.rd, s.report, s.rd.records(), embed_trials=False,
                                         trial_base=f"/run/{n}/trial/")
            return s.summary


def serve(run_dirs: list[Path], port: int = 0, judges: list[str] | None = None) -> ThreadingHTTPServer:
    """A started server (in a daemon thread) for these runs on 127.0.0.1 (each as judged by each of
    ``judges``, default its own judge); its port is ``server.server_address[1]``."""
    runs = _load(run_dirs, judges)
    handler = type("Handler", (_Handler,), {"runs": runs, "lock": threading.Lock()})
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
