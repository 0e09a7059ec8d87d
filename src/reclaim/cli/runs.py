"""`reclaim runs` and `reclaim index`: the runs kept, through the SQLite index over run directories."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich import box
from rich.table import Table

from reclaim.cli.common import console, fail
from reclaim.store import Index, RunDir, agent_label, legacy_root, root_origin, runs_root

index_app = typer.Typer(help="The SQLite index over run directories.")

RootArg = Annotated[Optional[Path], typer.Argument(
    help="The runs root (default $RECLAIM_HOME/runs; RECLAIM_HOME defaults to ~/.local/share/reclaim).",
    show_default=False)]


@index_app.command("rebuild")
def index_rebuild(root: RootArg = None) -> None:
    """Rebuild RUNS_ROOT/index.sqlite from the run directories (the truth): every run under the root,
    and the runs kept elsewhere (--run-dir) that it listed and that still exist."""
    root = runs_root(root)
    if not root.is_dir():
        fail(f"no runs root at {root}: the folder does not exist (give the runs root, or set $RECLAIM_HOME)")
    runs, trials = Index(root).rebuild()
    console.print(f"indexed {runs} runs, {trials} trials into {root / 'index.sqlite'}")


def _status(total: int, done: int, errors: int, exists: bool) -> str:
    if not exists:
        return "missing"
    if done < total:
        return "unfinished"
    return "with errors" if errors else "finished"


def runs(root: RootArg = None) -> None:
    """List the runs in the runs root's index: id, date (left out under 100 columns: the id starts with
    it), suite, agents, trials done, status, judge. Runs kept in ./runs, the default before one root
    per user, are named below the table with the command that lists them."""
    given = root
    root = runs_root(root)
    old = legacy_root(root) if given is None else None
    if not root.is_dir() and old is None:
        fail(f"no runs at {root.absolute()} ({root_origin(given)}): the folder does not exist (runs are kept "
             "there once one is started; give another runs root, or set $RECLAIM_HOME)")
    rows = _rows(Index(root)) if root.is_dir() else []
    if rows:
        _where("runs in", root, given)
        console.print(_table(rows))
    else:
        hint = "" if Index(root).exists() or not root.is_dir() else (
            " (no index there; if it holds run folders: reclaim index rebuild " + str(root) + ")")
        _where("no runs in", root, given, hint)
    if old is not None:
        n = len(_rows(Index(old))) if Index(old).exists() else len(list(old.glob("*/run.json")))
        console.print(f"{n} more run{'s' * (n != 1)} in {old.absolute()}, where runs were kept before one root "
                      "per user; their ids are found from here, and this lists them:", highlight=False)
        console.print(f"  reclaim runs {old.absolute()}", highlight=False, soft_wrap=True)


def _where(said: str, root: Path, given: Path | None, hint: str = "") -> None:
    """The root whole on one line (never wrapped), and how it was chosen unless it was given."""
    console.print(f"{said} {root.absolute()}{hint}", highlight=False, soft_wrap=True)
    if given is None:
        console.print(f"({root_origin(given)})", highlight=False)


def _rows(ix: Index) -> list[tuple]:
    return ix.query(
        "SELECT r.run_id, r.path, r.created, r.suite, r.suite_version, r.agents, r.judge, "
        "COUNT(t.trial_id), SUM(t.outcome IS NOT NULL AND t.status != 'running'), SUM(t.outcome = 'error') "
        "FROM runs r LEFT JOIN trials t USING (run_id) GROUP BY r.run_id ORDER BY r.created")


def _table(rows: list[tuple]) -> Table:
    dated = console.width >= 100  # narrower: the run id says when (YYYYMMDD-HHMMSS-...)
    table = Table(highlight=False, box=box.SIMPLE_HEAD,
                  pad_edge=False, collapse_padding=True)
    labels = {row[0]: [agent_label(a) for a in (row[5] or "").split(",") if a] for row in rows}  # not specs
    longest = max((len(a) for names in labels.values() for a in names), default=0)
    columns: list[tuple[str, dict[str, Any]]] = [  # Table.add_column's keywords, of mixed types
        ("run", {"no_wrap": True}), ("date", {"no_wrap": True}), ("suite", {"no_wrap": True}),
        ("agents", {"min_width": max(longest + 1, 6)}), ("trials", {"justify": "right", "no_wrap": True}),
        ("status", {"min_width": 8}), ("judge", {"no_wrap": True})]
    for name, kw in columns:
        if name == "date" and not dated:
            continue
        kw.setdefault("min_width", len(name))
        table.add_column(name, **kw)  # a header is never cut short; cells wrap between words only
    for run_id, path, created, suite, version, _agents, judge, n, done, errors in rows:
        exists = bool(path) and (Path(path) / "run.json").is_file()
        total = n
        if exists:
            try:
                total = RunDir(Path(path)).spec().trial_total()
            except FileNotFoundError:
                exists = False
        status = _status(total, done or 0, errors or 0, exists)
        style = {"finished": "green", "with errors": "red", "missing": "dim"}.get(status, "yellow")
        date = [time.strftime("%Y-%m-%d %H:%M", time.localtime(created))] if dated else []
        table.add_row(run_id, *date, f"{suite}@{version}", ", ".join(labels[run_id]),
                      f"{done or 0}/{total}", f"[{style}]{status}[/]", judge)
    return table
