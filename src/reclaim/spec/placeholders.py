"""The placeholders `reclaim tasks new` writes, and finding those still left in a task.

A skeleton's task.yaml holds ``"FILL IN: what goes here"`` where a value must be given; its
paper.md and reference script hold a line starting ``# FILL IN``; each material folder holds a
``FILL_IN.md``. Loading a task that still has one fails with the field and what to put there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

MARK = "FILL IN"
FILE_MARK = f"# {MARK}"
MATERIAL_MARK = "FILL_IN.md"
HEAD_BYTES = 1 << 16


def value_placeholders(raw: Any, prefix: str = "") -> dict[str, str]:
    """Dotted field -> what to put there, for every string in the YAML that is still a placeholder."""
    out: dict[str, str] = {}
    items = raw.items() if isinstance(raw, dict) else enumerate(raw) if isinstance(raw, list) else ()
    for key, value in items:
        where = f"{prefix}.{key}" if prefix else str(key)
        if isinstance(value, str) and value.strip().startswith(MARK):
            out[where] = value.strip()[len(MARK):].lstrip(" :") or "a value"
        else:
            out.update(value_placeholders(value, where))
    return out


def file_is_placeholder(path: Path) -> bool:
    """A file (paper text, script) with a line starting '# FILL IN': still the skeleton's."""
    try:
        if path.is_symlink() or not path.is_file():
            return False
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES).decode("utf-8", "replace")
    except OSError:
        return False
    return any(line.startswith(FILE_MARK) for line in head.splitlines())


def material_placeholder(task_dir: Path, rel: str) -> Path | None:
    """The FILL_IN.md still in a local material folder, if any."""
    marker = task_dir / rel / MATERIAL_MARK
    return marker if marker.is_file() else None


def _get(raw: Any, *keys: str) -> Any:
    for k in keys:
        raw = raw.get(k) if isinstance(raw, dict) else None
    return raw


def findings(task_dir: Path, raw: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(field, what is wrong, the fix) for every placeholder still in the task folder."""
    out = [(where, f"not filled in yet (still '{MARK}: {what}')", f"replace the placeholder with {what}")
           for where, what in value_placeholders(raw).items()]
    paper = _get(raw, "paper", "text")
    paper = paper if isinstance(paper, str) else "paper.md"
    if file_is_placeholder(task_dir / paper):
        out.append(("paper.text", f"'{paper}' is still the skeleton's placeholder",
                    f"paste the paper's text into {task_dir / paper} (or delete it and give paper.arxiv or paper.pdf)"))
    ref = raw.get("reference", {})
    if isinstance(ref, dict):
        folder = ref.get("path", "reference") if isinstance(ref.get("path", "reference"), str) else "reference"
        for key, default in (("entrypoint", "reproduce.sh"), ("weakened", None)):
            name = ref.get(key, default)
            if isinstance(name, str) and file_is_placeholder(task_dir / folder / name):
                what = "the reference solution" if key == "entrypoint" else "the weakened experiment"
                out.append((f"reference.{key}", f"'{folder}/{name}' is still the skeleton's placeholder",
                            f"write {what} in {task_dir / folder / name}: a bash script that computes the "
                            "metric from the materials and writes results.json"))
    for kind in ("code", "data", "weights"):
        rel = _get(raw, "materials", kind, "path")
        if isinstance(rel, str) and (marker := material_placeholder(task_dir, rel)) is not None:
            out.append((f"materials.{kind}.path", f"'{rel}/' still holds the skeleton's {MATERIAL_MARK}",
                        f"put the released {kind} in {task_dir / rel} and delete {marker}"))
    return out


def covers(field: str, holes: set[str]) -> bool:
    """A validation error at ``field`` that a placeholder there (or above it) already explains."""
    return any(field == h or field.startswith(h + ".") for h in holes)
