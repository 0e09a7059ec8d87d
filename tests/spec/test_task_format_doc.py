"""docs/task-format.md documents every field of every spec model, under the section of its YAML
path, marked required exactly when the model requires it: a field added to the models and not to
the doc fails here."""

from __future__ import annotations

import re
import typing
from pathlib import Path

from pydantic import BaseModel

from reclaim.spec import SuiteMeta, TaskSpec

DOC = Path(__file__).resolve().parents[2] / "docs" / "task-format.md"
ROOTS = {"task.yaml": TaskSpec, "suite.yaml": SuiteMeta}
SHARED = {"materials.code": "materials.<kind>"}  # code, data and weights share one model: documented once


def _models(annotation) -> list[tuple[type[BaseModel], bool]]:
    """The models an annotation holds, each with whether it sits in a mapping's values."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [(annotation, False)]
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is dict:
        return [(m, True) for m, _ in _models(args[1])]
    return [found for a in args for found in _models(a)]


def sections() -> dict[str, type[BaseModel]]:
    """YAML path -> model, each model at the first path it is reached by."""
    out: dict[str, type[BaseModel]] = {}
    todo = list(ROOTS.items())
    while todo:
        path, model = todo.pop(0)
        for short, alias in SHARED.items():
            if path == short or path.startswith(short + "."):
                path = alias + path[len(short):]
        if model in out.values():
            continue
        out[path] = model
        for name, info in model.model_fields.items():
            for sub, in_dict in _models(info.annotation):
                base = name if path in ROOTS else f"{path}.{name}"
                todo.append((f"{base}.<name>" if in_dict else base, sub))
    return out


def section_text(doc: str, path: str) -> str:
    """The text under the heading that names `path`, up to the next heading of its level or above."""
    lines = doc.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^(#+) ", line)
        if m and re.search(rf"`{re.escape(path)}`", line):
            depth = len(m[1])
            end = next((j for j in range(i + 1, len(lines))
                        if (h := re.match(r"^(#+) ", lines[j])) and len(h[1]) <= depth), len(lines))
            return "\n".join(lines[i + 1:end])
    raise AssertionError(f"docs/task-format.md has no heading naming `{path}`")


def test_every_model_field_is_documented_in_its_section():
    doc = DOC.read_text(encoding="utf-8")
    found = sections()
    assert {"paper", "materials.<kind>", "materials.<kind>.git", "target.metrics.<name>", "budget.reexec",
            "environment", "network", "suite.yaml"} <= set(found)  # the walk reaches the nested models
    missing, wrong = [], []
    for path, model in found.items():
        text = section_text(doc, path)
        for name, info in model.model_fields.items():
            row = next((line for line in text.splitlines() if line.startswith(f"| `{name}` |")), None)
            if row is None:
                missing.append(f"{path}: {name}")
            elif ("**required**" in row) != info.is_required():
                wrong.append(f"{path}: {name} ({'required' if info.is_required() else 'optional'} in the model)")
    assert not missing, f"fields with no row in docs/task-format.md: {missing}"
    assert not wrong, f"rows marked required wrongly: {wrong}"


def test_the_doc_names_every_choice_of_every_enum_field():
    doc = DOC.read_text(encoding="utf-8")
    for model in sections().values():
        for name, info in model.model_fields.items():
            for arg in (info.annotation, *typing.get_args(info.annotation)):
                if isinstance(arg, type) and issubclass(arg, __import__("enum").Enum):
                    for choice in arg:
                        assert f"`{choice.value}`" in doc, (model.__name__, name, choice.value)
