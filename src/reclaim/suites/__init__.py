"""Suites bundled with reclaim, found by name."""

from __future__ import annotations

from reclaim.errors import NotFound
from pathlib import Path

HERE = Path(__file__).parent
DEFAULT = "demo"


def bundled() -> dict[str, Path]:
    return {p.parent.name: p.parent for p in sorted(HERE.glob("*/suite.yaml"))}


def resolve_suite(arg: str | Path | None) -> Path:
    """A suite folder from a path, or from the name of a bundled suite."""
    if arg is None:
        arg = DEFAULT
    path = Path(arg)
    if path.is_dir():
        return path
    found = bundled()
    if str(arg) in found:
        return found[str(arg)]
    raise NotFound(f"no suite '{arg}': not a folder, and the bundled suites are "
                            f"{', '.join(found) or 'none'}")
