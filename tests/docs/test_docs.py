"""The docs cannot drift from the code: every `reclaim` command shown in README.md and docs/*.md parses
against the real CLI, the walk-throughs marked in the docs run for real, and every relative link lands.

How a guide marks what runs (an HTML comment on the line before a fenced block, visible in the source):

    <!-- runs-in-test -->                 the block's commands run, in order, in one folder per guide
    <!-- runs-in-test exit=1 -->          ... and each of them must exit 1 (default 0)
    <!-- runs-in-test setup="CMD" -->     ... after CMD has run there first (once per guide)
    <!-- file: PATH -->                   the block is written to PATH (relative to that folder)

In a `console` block, lines after `$ CMD` are its output as the guide shows it: every word of them must be in
the real output (layout, wrapping and order aside); lines holding `...` or `…` stand for what is left out.
`RUN_ID` is the newest run under ./runs, `TRIAL` one of its trials. A command that serves until stopped
(`reclaim view`) is parsed, never run.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_LANGS = {"sh", "console", "bash", "shell"}
SERVES = {("view",)}  # commands that run until stopped: parsed only
MARKER = re.compile(r"<!--\s*(runs-in-test|file:)\s*(.*?)\s*-->")


@dataclass
class Block:
    doc: Path
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    marker: str = ""  # "runs-in-test" or "file:"
    args: str = ""  # what follows the marker

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


@dataclass
class Command:
    block: Block
    line: str  # as shown (prompt stripped, continuations joined)
    output: list[str] = field(default_factory=list)  # what the console block shows after it


def blocks(doc: Path) -> list[Block]:
    """Every fenced block of a Markdown file, with the marker on the line before it, if any."""
    out: list[Block] = []
    lines = doc.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(`{3,})\s*([\w+-]*)", lines[i])
        if not m:
            i += 1
            continue
        fence, lang, start = m.group(1), m.group(2).lower(), i
        j = i + 1
        while j < len(lines) and not lines[j].startswith(fence):
            j += 1
        prev = next((lines[k] for k in range(start - 1, -1, -1) if lines[k].strip()), "")
        mark = MARKER.search(prev) if start > 0 else None
        out.append(Block(doc, start + 1, lang, "\n".join(lines[start + 1:j]) + "\n",
                         mark.group(1) if mark else "", mark.group(2) if mark else ""))
        i = j + 1
    return out


def commands(block: Block) -> list[Command]:
    """The command lines of a shell block: comments skipped, `$ ` prompts and `\\` continuations handled."""
    if block.lang not in SHELL_LANGS:
        return []
    console = block.lang == "console"
    out: list[Command] = []
    pending = ""
    for raw in block.text.splitlines():
        if pending:
            line = pending + " " + raw.strip()
        elif console:
            if not raw.startswith("$ "):
                if out and raw.strip():
                    out[-1].output.append(raw)
                continue
            line = raw[2:].strip()
        else:
            line = raw.strip()
        if line.endswith("\\"):
            pending = line[:-1].rstrip()
            continue
        pending = ""
        if line and not line.startswith("#"):
            out.append(Command(block, line))
    return out


def reclaim_argvs(line: str) -> list[list[str]]:
    """Each `reclaim ...` invocation on a command line (also .venv/bin/reclaim and chains with &&, ;, |)."""
    tokens = shlex.split(line, comments=True)
    parts: list[list[str]] = [[]]
    for t in tokens:
        if t in ("&&", "||", ";", "|"):
            parts.append([])
        else:
            parts[-1].append(t)
    found = []
    for part in parts:
        while part and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", part[0]):  # VAR=value reclaim ...
            part = part[1:]
        if part and Path(part[0]).name == "reclaim":
            found.append(part[1:])
    return found


ALL_BLOCKS = [b for doc in DOCS for b in blocks(doc)]
ALL_COMMANDS = [(c, argv) for b in ALL_BLOCKS for c in commands(b) for argv in reclaim_argvs(c.line)]


def parse(argv: list[str]):
    """Parse argv as `reclaim` would, down to the leaf command; raise on an unknown command, option or value."""
    import typer

    from reclaim.cli.main import app

    cmd = typer.main.get_command(app)
    ctx = cmd.make_context("reclaim", list(argv))
    path: list[str] = []
    while hasattr(cmd, "list_commands"):  # a group: resolve its subcommand, if one is given
        rest = list(getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", [])) + list(ctx.args)
        if not rest:
            break
        sub = cmd.get_command(ctx, rest[0])
        if sub is None:
            raise AssertionError(f"no command {' '.join([*path, rest[0]])!r}")
        path.append(rest[0])
        ctx = sub.make_context(rest[0], rest[1:], parent=ctx)
        cmd = sub
    return tuple(path), ctx


def test_the_docs_show_commands():
    assert len(ALL_COMMANDS) >= 60, len(ALL_COMMANDS)
    assert sum(1 for b in ALL_BLOCKS if b.marker == "runs-in-test") >= 5


@pytest.mark.parametrize("cmd,argv", ALL_COMMANDS, ids=[f"{c.block.where}:{' '.join(a)[:50]}" for c, a in ALL_COMMANDS])
def test_command_parses(cmd: Command, argv: list[str]):
    """Every command and option a guide shows exists, and every value has the right type."""
    try:
        parse(argv)
    except BaseException as e:  # click's usage errors, SystemExit, ...
        msg = e.format_message() if hasattr(e, "format_message") else str(e)
        pytest.fail(f"{cmd.block.where}: `reclaim {' '.join(argv)}` does not parse: {type(e).__name__}: {msg}")


# ---------------------------------------------------------------------------------------------- run for real

WORD = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.%@/+-]*")
RUN_ID = re.compile(r"\d{8}-\d{6}-[0-9a-f]{4}")


def words(text: str) -> set[str]:
    return {w.rstrip(".-/") for w in WORD.findall(text)} - {""}


def missing_words(shown: list[str], actual: str) -> list[str]:
    """The words of the shown output (elided lines aside) that the real output lacks."""
    have = words(actual)
    want: list[str] = []
    for line in shown:
        if "..." in line or "…" in line:
            continue
        want += [w for w in sorted(words(line)) if not RUN_ID.fullmatch(w)]
    return [w for w in want if w not in have]


def substitute(line: str, cwd: Path) -> str:
    if "RUN_ID" not in line and "TRIAL" not in line:
        return line
    runs = sorted(p for p in (cwd / "runs").glob("*") if p.is_dir())
    assert runs, f"no run under {cwd}/runs for {line!r}"
    trials = sorted(p.name for p in (runs[-1] / "trials").iterdir())
    return line.replace("RUN_ID", runs[-1].name).replace("TRIAL", trials[0])


def env() -> dict[str, str]:
    e = {**os.environ, "COLUMNS": "200", "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(sys.path),
         "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    return e


def sh(line: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", line], cwd=cwd, env=env(), capture_output=True, text=True, timeout=600)


RUNNABLE = [doc for doc in DOCS if any(b.doc == doc and b.marker for b in ALL_BLOCKS)]


@pytest.mark.slow  # runs whole trials
@pytest.mark.parametrize("doc", RUNNABLE, ids=[d.name for d in RUNNABLE])
def test_walkthrough_runs(doc: Path, tmp_path: Path):
    """The marked blocks of a guide, in order, in one folder: files written, commands run, output as shown."""
    if Path(sys.executable).parent.joinpath("reclaim").exists() is False:
        pytest.skip("reclaim is not installed in this interpreter's environment")
    set_up = False
    ran = 0
    for block in (b for b in ALL_BLOCKS if b.doc == doc and b.marker):
        if block.marker == "file:":
            target = tmp_path / block.args
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text)
            if block.text.startswith("#!"):
                target.chmod(0o755)
            continue
        opts = {k: a or b for k, a, b in re.findall(r'(\w+)=(?:"([^"]*)"|(\S+))', block.args)}
        if "setup" in opts and not set_up:
            res = sh(opts["setup"], tmp_path)
            out = res.stdout[-2000:] + res.stderr[-2000:]
            assert res.returncode == 0, f"{block.where}: setup {opts['setup']!r} exited {res.returncode}:\n{out}"
            set_up = True
        for cmd in commands(block):
            if any(tuple(argv[:1]) in SERVES for argv in reclaim_argvs(cmd.line)):
                continue
            line = substitute(cmd.line, tmp_path)
            res = sh(line, tmp_path)
            ran += 1
            out = res.stdout + res.stderr
            expected = int(opts.get("exit", 0))
            assert res.returncode == expected, (
                f"{block.where}: `{line}` exited {res.returncode}, the guide expects {expected}:\n{out[-3000:]}")
            lost = missing_words(cmd.output, out)
            assert not lost, f"{block.where}: `{line}`: words shown but not printed: {lost}\n{out[-3000:]}"
    assert ran, f"{doc.name}: nothing ran"


# ---------------------------------------------------------------------------------------------- links and length

def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"`|\*\*?|_(?=\w)|\[|\]\([^)]*\)", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", doc.read_text(), flags=re.S | re.M)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*)$", text, re.M)}


def links(doc: Path) -> list[tuple[int, str]]:
    text = doc.read_text()
    found = []
    in_code = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", re.sub(r"`[^`]*`", "", line)):
            found.append((n, m.group(1)))
    return found


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_relative_links_land(doc: Path):
    bad = []
    for n, target in links(doc):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (doc.parent / path).resolve() if path else doc
        if not dest.exists():
            bad.append(f"{doc.name}:{n}: {target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{doc.name}:{n}: {target} (no heading #{anchor} in {dest.name})")
    assert not bad, bad


def test_readme_is_short_and_leads_to_every_guide():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200, "README.md is for a five-minute read: move detail into docs/"
    for guide in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{guide.name})" in readme, f"README.md's table of guides lacks docs/{guide.name}"
    for words_ in ("./scripts/demo", "./scripts/test", "--trials", "reclaim show", "--format html", "reclaim view",
                   "source .venv/bin/activate"):
        assert words_ in readme, words_


@pytest.mark.parametrize("doc", DOCS[1:], ids=[d.name for d in DOCS[1:]])
def test_each_guide_says_what_it_is_for(doc: Path):
    """A title, then a paragraph before anything else; a long guide has a contents list of its sections."""
    text = doc.read_text()
    lines = text.splitlines()
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)  # a heading inside an example is not a section
    assert lines[0].startswith("# "), f"{doc.name} starts with its title"
    first = next(line for line in lines[1:] if line.strip())
    assert not first.startswith(("#", "```", "|", "-", "<!--")), f"{doc.name}: what it is for, in a paragraph"
    if len(lines) > 250 and doc.name not in ("task-format.md", "records.md"):
        sections = re.findall(r"^## (.*)$", text, re.M)
        listed = set(re.findall(r"^- \[[^\]]*\]\(#([^)]+)\)", text, re.M))
        assert {slug(s) for s in sections} <= listed, f"{doc.name}: its contents list lacks some of its sections"


# ---------------------------------------------------------------------------------------------- suites named

PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$")  # SUITE, PATH: the reader's own
SUITE_POSITIONAL = {("tasks", "validate"), ("tasks", "list"), ("materials", "fetch"), ("materials", "lock"),
                    ("materials", "pack"), ("curate", "review")}


def suite_args(argv: list[str]) -> list[str]:
    """The suites a command names: after --suite, and the positional suite of the commands that take one."""
    out = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--suite"]
    out += [a.split("=", 1)[1] for a in argv if a.startswith("--suite=")]
    if tuple(argv[:2]) in SUITE_POSITIONAL and len(argv) > 2 and not argv[2].startswith("-"):
        out.append(argv[2])
    return out


def made_suites() -> set[str]:
    """The folders the guides make suites in: `tasks new ... --suite X` and `curate build ... -o X`."""
    made = set()
    for _c, argv in ALL_COMMANDS:
        if argv[:2] == ["tasks", "new"]:
            made |= {s.removeprefix("./") for s in suite_args(argv)}
        if argv[:2] == ["curate", "build"] and "-o" in argv[:-1]:
            made.add(argv[argv.index("-o") + 1].removeprefix("./"))
    return made


NAMED = sorted({(c.block.where, s) for c, argv in ALL_COMMANDS for s in suite_args(argv)})


@pytest.mark.parametrize("where,suite", NAMED, ids=[f"{w}:{s}" for w, s in NAMED])
def test_every_suite_a_guide_names_is_there(where: str, suite: str):
    """A suite the reader copies from a guide loads as written: a bundled one by its name (listed here by the
    real CLI), or a folder a guide makes with its own commands; anything else is a placeholder in capitals.
    (docs/clusters.md once said `--suite suites/neurips2025`, which is no folder a clone has.)"""
    if PLACEHOLDER.match(suite) or suite.removeprefix("./") in made_suites():
        return
    from reclaim.suites import bundled

    assert suite in bundled(), (f"{where}: names the suite {suite!r}, which is neither bundled "
                                f"({', '.join(bundled())}) nor made by a command of the guides (tasks new --suite, "
                                "curate build -o)")
    r = subprocess.run([str(Path(sys.executable).parent / "reclaim"), "tasks", "list", suite], env=env(),
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, f"{where}: reclaim tasks list {suite}: {r.stderr[-500:]}"
