"""`reclaim view`: runs' reports in the browser, served from this machine only."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from reclaim.cli.common import console, fail


def view(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders or run ids (of one suite, to compare).")],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1; 0 takes a free one.")] = 0,
    judge: Annotated[Optional[list[str]], typer.Option(
        "--judge", help="Show each run as judged by this judge (a label such as rules or llm-gpt-4.1); "
                        "twice or more compares the judges side by side.")] = None,
) -> None:
    """Serve the reports of runs on 127.0.0.1: each run's summary with its trial pages loaded when a
    cell is clicked, and for several runs a leaderboard and the papers where they differ. Ctrl-C stops."""
    from reclaim.store import find_run

    run_dirs = [find_run(d) for d in run_dirs]
    for d in run_dirs:
        if not (d / "run.json").is_file():
            fail(f"{d}: not a run directory (no run.json); give RUN_DIR as `reclaim runs` lists it")
    from reclaim.report.html.server import serve
    from reclaim.report.of_run import NoVerdicts

    try:
        server = serve(run_dirs, port, judge)
    except NoVerdicts as e:
        fail(str(e))
    except OSError as e:
        fail(f"cannot listen on 127.0.0.1:{port}: {e.strerror}; choose another --port, or 0 for a free one")
    host, bound = server.server_address[:2]
    assert isinstance(host, str)  # an AF_INET server's address
    console.print(f"serving {len(run_dirs)} run(s) at http://{host}:{bound}/ (Ctrl-C stops)", highlight=False)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()
