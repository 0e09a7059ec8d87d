"""Reading task.yaml and suite.yaml, with one clear message per problem."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from reclaim import errors
from reclaim.spec import placeholders
from reclaim.spec.lock import LOCK_FILE, apply_lock, read_lock
from reclaim.spec.models import Level, SuiteMeta, TaskSpec

TASK_FILE = "task.yaml"
SUITE_FILE = "suite.yaml"


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a spec: where, what, and how to fix it."""

    file: Path
    field: str
    message: str
    fix: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.field}" if self.field else str(self.file)
        return f"{where}: {self.message} — fix: {self.fix}"


class SpecError(errors.SpecError):
    """A spec could not be loaded; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def _fix_for(err: ErrorDetails, model: type[BaseModel], loc: tuple) -> str:
    kind = err["type"]
    if kind == "missing":
        return f"add the required field '{loc[-1]}'"
    if kind == "extra_forbidden":
        allowed = _allowed_keys(model, loc[:-1])
        hint = f" (allowed here: {', '.join(allowed)})" if allowed else ""
        return f"remove '{loc[-1]}' or correct its spelling{hint}"
    if kind == "finite_number":
        return "give a finite number (not inf or nan)"
    if kind in ("greater_than_equal", "greater_than"):
        return f"use a value {'>=' if kind.endswith('equal') else '>'} {err['ctx'].get('ge', err['ctx'].get('gt'))}"
    if kind == "enum":
        return f"use one of: {err['ctx'].get('expected', '')}"
    if kind == "string_pattern_mismatch":
        pattern: str | None = err["ctx"].get("pattern")
        return _PATTERN_FIXES.get(pattern or "", f"match the pattern {pattern}")
    for prefix, wanted in _TYPE_WORDS.items():
        if kind.startswith(prefix):
            return f"give {wanted}"
    return "see what the field takes in docs/task-format.md"


_PATTERN_FIXES = {
    r"^[0-9a-f]{40}$": "give the full 40-character lowercase commit sha (git rev-parse HEAD), "
                       "not a short sha, a tag or a branch",
    r"^[0-9a-f]{64}$": "give the file's full 64-character lowercase sha256 (sha256sum FILE)",
    r"^3\.[0-9]+$": "give a quoted major.minor version, e.g. '3.12'",
}

_TYPE_WORDS = {
    "float": "a number", "int": "a whole number", "string": "text (quote it)", "bool": "true or false",
    "list": "a list", "tuple": "a list", "dict": "a mapping of keys to values",
    "model": "a mapping of keys to values",
}


def _allowed_keys(model: type[BaseModel], loc: tuple) -> list[str]:
    current: Any = model
    for part in loc:
        if isinstance(part, int) or current is None:
            continue
        info = getattr(current, "model_fields", {}).get(part)
        if info is None:
            return []
        current = _model_of(info.annotation)
    return sorted(getattr(current, "model_fields", {}))


def _model_of(annotation: Any) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _model_of(arg)
        if found is not None:
            return found
    return None


def problems_from_validation(path: Path, exc: ValidationError, model: type[BaseModel]) -> list[Problem]:
    out = []
    errors = exc.errors()
    for err in errors:
        if _losing_branch(err, errors):
            continue
        loc = tuple(p for p in err["loc"] if not _is_branch(p))
        field_name = ".".join(str(p) for p in loc)
        message = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")  # pydantic's words
        if err["type"] == "literal_error" and any(e["loc"] == (*err["loc"][:-1], "float") for e in errors):
            message = f"Input should be a number or {err.get('ctx', {}).get('expected', 'the word')}"
        if "input" in err and err["type"] != "missing" and not isinstance(err["input"], dict):
            message += f" (got {err['input']!r})"
        out.append(Problem(path, field_name, message, _fix_for(err, model, loc)))
    return out


def _is_branch(part: Any) -> bool:
    """pydantic's names for a validator or a union member ('function-after[...]', "literal['generated']")."""
    return isinstance(part, str) and (part.startswith(("function-", "literal[")) or part in ("function-after", "float"))


def _losing_branch(err: ErrorDetails, errors: list[ErrorDetails]) -> bool:
    """A union's literal member ('generated', 'pending') failing beside a member that was meant: a
    mapping that failed deeper, or a number where the input is no word; that member's error says
    what is wrong."""
    loc = err["loc"]
    if loc and loc[-1] == "float" and isinstance(err.get("input"), str):  # a word where a number or a word goes:
        return any(e is not err and e["loc"][:-1] == loc[:-1] for e in errors)  # the word's error says which
    if not (loc and isinstance(loc[-1], str) and loc[-1].startswith("literal[")):
        return False
    if not isinstance(err.get("input"), str):  # a number meant, not a word: the number's error says what is wrong
        return any(e is not err and e["loc"][:len(loc) - 1] == loc[:-1] for e in errors)
    return any(e is not err and e["loc"][:len(loc) - 1] == loc[:-1] and len(e["loc"]) > len(loc) for e in errors)


FIRST_LINES = {
    SUITE_FILE: "at least 'name: my-suite' and 'version: \"1\"' (`reclaim tasks new ID --suite DIR` writes one; "
                "every field: docs/task-format.md)",
    "task.yaml": "its fields as docs/task-format.md gives them (`reclaim tasks new ID` writes a skeleton)",
}
"""What a file of each name must at least say, for the fix of a missing or empty one."""


def read_yaml(path: Path) -> dict[str, Any]:
    need = FIRST_LINES.get(path.name)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError([Problem(path, "", "file not found",
                                 f"create {path.name}" + (f" with {need}" if need else ""))]) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else ""
        raise SpecError(
            [Problem(path, where, f"not valid YAML: {getattr(e, 'problem', e)}", "fix the YAML syntax")]
        ) from None
    if not isinstance(raw, dict):
        what = "it is empty" if raw is None else f"it holds a {type(raw).__name__}"
        raise SpecError([Problem(path, "", f"expected a mapping of keys to values ({what})",
                                 "write key: value pairs" + (f": {need}" if need else ""))])
    return raw


def load_task(task_dir: Path) -> TaskSpec:
    """Load and check one task folder; raise SpecError listing every problem."""
    path = task_dir / TASK_FILE
    raw = read_yaml(path)
    if (task_dir / VERIFIED_FILE).is_file() and isinstance(raw, dict) and "verified" not in raw:
        raw = {**raw, "verified": read_yaml(task_dir / VERIFIED_FILE)}  # what validate --record measured
    problems = file_problems(task_dir, raw)
    holes = [Problem(path, *f) for f in placeholders.findings(task_dir, raw)]  # a skeleton's FILL INs
    try:
        spec = TaskSpec.model_validate(raw)
    except ValidationError as e:
        where = {h.field for h in holes}
        rest = [p for p in problems_from_validation(path, e, TaskSpec) if not placeholders.covers(p.field, where)]
        raise SpecError(holes + rest + problems) from None
    problems = holes + problems
    problems += check_task(task_dir, spec)
    if problems:
        raise SpecError(problems)
    return spec


def _get(raw: Any, *keys: str) -> Any:
    for k in keys:
        raw = raw.get(k) if isinstance(raw, dict) else None
    return raw


def file_problems(task_dir: Path, raw: dict[str, Any]) -> list[Problem]:
    """Files the spec names that are not there; read from the raw YAML, so they are found
    even when other fields fail validation."""
    path = task_dir / TASK_FILE
    problems = []
    paper = _get(raw, "paper", "text") or "paper.md"
    elsewhere = _get(raw, "paper", "pdf") or _get(raw, "paper", "arxiv")
    if isinstance(paper, str) and not (task_dir / paper).is_file() and not elsewhere:
        problems.append(Problem(path, "paper.text", f"paper file '{paper}' not found",
                                f"add {task_dir / paper}, point paper.text at the paper, "
                                "or give paper.arxiv or paper.pdf"))
    pdf = _get(raw, "paper", "pdf")
    if isinstance(pdf, str) and "://" not in pdf and not (task_dir / pdf).is_file():
        problems.append(Problem(path, "paper.pdf", f"'{pdf}' not found in the task folder",
                                f"add {task_dir / pdf} or give its URL with pdf_sha256"))
    for name in ("requirements", "dockerfile"):
        rel = _get(raw, "environment", name)
        if isinstance(rel, str) and not (task_dir / rel).is_file():
            problems.append(Problem(path, f"environment.{name}", f"'{rel}' not found in the task folder",
                                    f"add {task_dir / rel} or correct the path"))
    for name in ("code", "data", "weights"):
        rel = _get(raw, "materials", name, "path")
        if isinstance(rel, str) and not (task_dir / rel).exists():
            problems.append(Problem(path, f"materials.{name}.path", f"'{rel}' not found in the task folder",
                                    f"add {task_dir / rel} or correct the path"))
    ref = raw.get("reference", {})
    if isinstance(ref, dict):
        entry = Path(ref.get("path", "reference")) / ref.get("entrypoint", "reproduce.sh")
        if not (task_dir / entry).is_file():
            problems.append(Problem(path, "reference.entrypoint", f"reference script '{entry}' not found",
                                    "add the reference solution, or set reference: null"))
        weak = ref.get("weakened")
        if isinstance(weak, str) and not (task_dir / ref.get("path", "reference") / weak).is_file():
            problems.append(Problem(path, "reference.weakened",
                                    f"weakened experiment '{Path(ref.get('path', 'reference')) / weak}' not found",
                                    "add the script, or leave reference.weakened out"))
    return problems


_NAMED = re.compile(  # code/x, ./data/x, "weights", cd code
    r"""(?<![\w./-])(?:\./)?(code|data|weights)/|["'](code|data|weights)["']|\b(?:cd|pushd)\s+(?:\./)?(code|data|weights)\b""")


def reference_uses(task_dir: Path, spec: TaskSpec) -> dict[str, str]:
    """The material folders (code/, data/, weights/) the reference solution's files name, each
    with the first file that names it: what posing the task harder must not take from it."""
    if spec.reference is None or not (root := task_dir / spec.reference.path).is_dir():
        return {}
    found: dict[str, str] = {}
    for f in sorted(q for q in root.rglob("*") if q.is_file() and "__pycache__" not in q.parts):
        try:
            text = f.read_bytes()[:1 << 20].decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for m in _NAMED.finditer(text):
            found.setdefault(next(g for g in m.groups() if g), f.relative_to(task_dir).as_posix())
    return found


def _missing_fix(task_dir: Path, spec: TaskSpec, name: str) -> str:
    """How to supply a material the level needs, never by withholding what the reference uses."""
    m = spec.materials
    uses = reference_uses(task_dir, spec)
    harder = m.released_level()
    lost = {n: f for n, f in uses.items() if n not in m.allowed(harder)}
    fixes = []
    if name == "data" and m.code is not None and "data" not in uses:
        fixes.append("where the released code generates its data, say so: materials.data: generated")
    fixes.append(f"add materials.{name}" + (f" ({uses[name]} reads {name}/)" if name in uses else ""))
    if not lost:
        return ", or ".join(fixes) + f", or pose the task at a harder level (level: {harder.value})"
    why = "; ".join(f"{f} uses {n}/" for n, f in sorted(lost.items()))
    return ", or ".join(fixes) + (f" (not a harder level: level {harder.value} would not give the reference "
                                  f"what it uses: {why})")


def check_task(task_dir: Path, spec: TaskSpec) -> list[Problem]:
    """Checks that span several fields."""
    path = task_dir / TASK_FILE
    problems: list[Problem] = []
    if spec.id != task_dir.name:
        problems.append(Problem(path, "id", f"id '{spec.id}' differs from folder name '{task_dir.name}'",
                                f"set id: {task_dir.name} or rename the folder"))
    m = spec.materials
    need = {Level.run: ("code", "data", "weights"), Level.retrain: ("code", "data")}.get(spec.level, ())
    for name in need:
        if getattr(m, name) is None:
            problems.append(Problem(
                path, f"materials.{name}",
                f"level '{spec.level.value}' needs released {name}, but materials.{name} is missing",
                _missing_fix(task_dir, spec, name)))
    env = spec.environment
    if env is not None and env.requirements:
        first = Path(env.requirements).parts[0]
        for name in spec.withheld():
            ref = getattr(m, name)
            if ref.path and Path(ref.path).parts[0] == first:
                problems.append(Problem(
                    path, "environment.requirements",
                    f"'{env.requirements}' lies in materials.{name}, which level '{spec.level.value}' withholds",
                    "copy the requirements file beside task.yaml and point environment.requirements at it"))
    for metric in spec.metrics():
        if metric.criteria.interval is not None and not metric.pending:
            lo, hi = metric.criteria.interval
            field = ("criteria.interval" if metric.criteria is spec.criteria
                     else f"target.metrics.{metric.name}.interval")
            if not lo <= metric.value <= hi:
                problems.append(Problem(path, field, f"the target value {metric.value} lies outside [{lo}, {hi}]",
                                        "widen the interval to contain the reported value"))
    return problems


def load_suite_meta(suite_dir: Path) -> SuiteMeta:
    path = suite_dir / SUITE_FILE
    raw = read_yaml(path)
    try:
        return SuiteMeta.model_validate(raw)
    except ValidationError as e:
        raise SpecError(problems_from_validation(path, e, SuiteMeta)) from None


VERIFIED_FILE = "verified.yaml"


def content_hash(task_dir: Path) -> str:
    """sha256 over every file of the task folder (names and bytes), in sorted order."""
    h = hashlib.sha256()
    for p in sorted(q for q in task_dir.rglob("*") if q.is_file() and "__pycache__" not in q.parts):
        h.update(p.relative_to(task_dir).as_posix().encode() + b"\0")
        h.update(hashlib.sha256(p.read_bytes()).digest())
    return h.hexdigest()


@dataclass
class Task:
    """A loaded task: its spec, where it lives, and its content hash."""

    spec: TaskSpec
    dir: Path
    hash: str

    @property
    def id(self) -> str:
        return self.spec.id


@dataclass
class Suite:
    meta: SuiteMeta
    dir: Path
    tasks: list[Task] = field(default_factory=list)

    def task(self, task_id: str) -> Task:
        for t in self.tasks:
            if t.id == task_id:
                return t
        raise KeyError(task_id)


def task_dirs(suite_dir: Path, meta: SuiteMeta) -> list[Path]:
    if meta.tasks is not None:
        return [suite_dir / name for name in meta.tasks]
    return sorted(p.parent for p in suite_dir.glob(f"*/{TASK_FILE}"))


def unlisted_tasks(suite_dir: Path, meta: SuiteMeta) -> list[str]:
    """Folders with a task.yaml that the suite's ``tasks:`` list leaves out: the suite skips them."""
    if meta.tasks is None:
        return []
    return sorted(p.parent.name for p in suite_dir.glob(f"*/{TASK_FILE}") if p.parent.name not in set(meta.tasks))


def load_suite(suite_dir: Path) -> Suite:
    """Load a suite; raise SpecError with the problems of every task, not just the first."""
    suite_dir = Path(suite_dir)
    if not suite_dir.is_dir():
        raise SpecError([Problem(suite_dir, "", "suite folder not found", "pass the path of a folder with suite.yaml")])
    meta = load_suite_meta(suite_dir)
    problems: list[Problem] = []
    tasks: list[Task] = []
    for d in task_dirs(suite_dir, meta):
        if not (d / TASK_FILE).is_file():
            problems.append(Problem(suite_dir / SUITE_FILE, "tasks", f"task folder '{d.name}' has no {TASK_FILE}",
                                    f"add {d / TASK_FILE} or remove '{d.name}' from tasks"))
            continue
        try:
            tasks.append(Task(load_task(d), d, content_hash(d)))
        except SpecError as e:
            problems.extend(e.problems)
    try:
        lock = read_lock(suite_dir)
    except ValueError as e:
        raise SpecError([Problem(suite_dir / LOCK_FILE, "", str(e), "run reclaim materials lock again")]) from None
    for t in tasks:
        t.spec, found = apply_lock(t.spec, lock)
        problems += [Problem(t.dir / TASK_FILE, f, message, fix) for f, message, fix in found]
    if problems:
        raise SpecError(problems)
    if not tasks:
        raise SpecError([Problem(suite_dir, "", "the suite has no tasks", "add task folders with task.yaml")])
    return Suite(meta, suite_dir, tasks)
