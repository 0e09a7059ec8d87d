"""The released files as the harness provided them, for diffs against what the agent changed.

The materials are bound read-only from the content-addressed cache. The trace's setup note names
each material's cache object (``code/ = <source> [<digest12>, <n> bytes]``), run.json names the
cache, and materials.json holds every provided file's sha256; a file is used only when its bytes
have that sha256, so a moved cache or a changed task folder reads as "not reachable", never as a
wrong original.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
from pathlib import Path

from pydantic import BaseModel, Field

from reclaim.sandbox import untrusted
from reclaim.store import CHANGED
from reclaim.trace import Note

READ_BYTES = 1 << 20
CACHE_VAR = "RECLAIM_MATERIALS_CACHE"  # materials/cache.py's: its default root when run.json names none
_MOUNT = re.compile(r"(?:^|; )([\w.-]+)/ = (.*?) \[([0-9a-f]{8,64}), \d+ bytes\]")
_NOTES = ("materials (read-only, from the cache): ", "materials (copy-on-write over the cache): ")


class Originals:
    """Reads a released file (``code/train.py``) from where the harness got it, checked by sha256."""

    def __init__(self, trial_dir: Path, trace: list, provided: dict[str, str]):
        self.provided = provided
        self.mounts: dict[str, tuple[str, str]] = {}
        for e in trace:
            note = next((n for n in _NOTES if isinstance(e, Note) and e.message.startswith(n)), None)
            if note is not None and e.phase == "setup":
                for name, source, digest in _MOUNT.findall(e.message[len(note):]):
                    self.mounts.setdefault(name, (source, digest))
        self.roots = _cache_roots(trial_dir)
        self._got: dict[str, tuple[bytes | None, str]] = {}

    def read(self, rel: str) -> tuple[bytes | None, str]:
        """(its bytes, where they came from), or (None, why it cannot be read)."""
        if rel not in self._got:
            self._got[rel] = self._read(rel)
        return self._got[rel]

    def _read(self, rel: str) -> tuple[bytes | None, str]:
        want = self.provided.get(rel)
        name, _, inner = rel.partition("/")
        if want is None or not inner:
            return None, f"{rel} is not a released file"
        if name not in self.mounts:
            return None, f"the trace records no cache object for material {name}/"
        source, digest = self.mounts[name]
        places = [obj for root in self.roots for obj in _objects(root, digest)]
        if os.path.isabs(source) and Path(source).is_dir():
            places.append(Path(source))  # a local task folder, as the suite named it
        for place in places:
            try:
                data, size = untrusted.read_head(place, inner, READ_BYTES + 1)
            except untrusted.Untrusted:
                continue
            if size <= READ_BYTES and hashlib.sha256(data).hexdigest() == want:
                return data, f"{place}/{inner}"
        if not places:
            return None, (f"material {name}/'s cache object {digest} is not under "
                          f"{', '.join(str(r) for r in self.roots) or 'any known cache'}")
        return None, f"no copy of {rel} with materials.json's sha256 {want[:12]} in {len(places)} place(s) searched"


def _objects(root: Path, digest: str) -> list[Path]:
    objects = root / "objects"
    try:
        names = sorted(n for n in os.listdir(objects) if n.startswith(digest) and not n.endswith(".json"))
    except OSError:
        return []
    return [objects / n for n in names if (objects / n).is_dir() and not (objects / n).is_symlink()]


def _cache_roots(trial_dir: Path) -> list[Path]:
    roots = []
    run_json = trial_dir.parent.parent / "run.json"
    try:
        named = json.loads(run_json.read_text())["materials_cache"] if run_json.is_file() else None
    except (OSError, ValueError, KeyError, TypeError):
        named = None
    for r in (named, os.environ.get(CACHE_VAR), str(Path.home() / ".cache" / "reclaim" / "materials")):
        if r and Path(r) not in roots:
            roots.append(Path(r))
    return roots


class MaterialDiff(BaseModel):
    """One released file the agent changed, added or deleted in place, as a unified diff."""

    path: str = Field(description="'<kind>/<path in the material>'.")
    change: str = Field(description="added, modified or deleted.")
    diff: str = Field("", description="The unified diff against the release (the agent's side is untrusted text), "
                                      "cut to a number of lines; or why none is shown.")


def material_diffs(trial_dir: Path, trace: list, provided: dict[str, str], files: int = 20,
                   lines: int = 120) -> list[MaterialDiff]:
    """What the agent did to the release in place (materials-changed.json, the harness's record),
    each change as a diff of the agent's file (read as hostile: no link followed, bounded) against
    the released one (read from the cache, checked by sha256)."""
    try:
        listed = json.loads((trial_dir / CHANGED).read_text())
    except (OSError, ValueError):
        return []
    originals = Originals(trial_dir, trace, provided)
    out = []
    for item in listed[:files]:
        rel, change = str(item.get("path", "")), str(item.get("change", ""))
        if change == "deleted":
            out.append(MaterialDiff(path=rel, change=change, diff="(deleted)"))
            continue
        try:
            mine, size = untrusted.read_head(trial_dir / "workspace", rel, READ_BYTES)
        except untrusted.Untrusted as e:
            out.append(MaterialDiff(path=rel, change=change, diff=f"(not readable: {e})"))
            continue
        old = b""
        if change == "modified":
            got, where = originals.read(rel)
            if got is None:
                out.append(MaterialDiff(path=rel, change=change, diff=f"(the release's copy is not at hand: {where})"))
                continue
            old = got
        try:
            a, b = old.decode("utf-8").splitlines(), mine.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            out.append(MaterialDiff(path=rel, change=change, diff=f"(binary: {len(old)} -> {size} bytes)"))
            continue
        text = list(difflib.unified_diff(a, b, f"release/{rel}", f"agent/{rel}", lineterm="", n=2))
        cut = f"\n... {len(text) - lines} more diff lines" if len(text) > lines else ""
        out.append(MaterialDiff(path=rel, change=change, diff="\n".join(text[:lines]) + cut))
    return out
