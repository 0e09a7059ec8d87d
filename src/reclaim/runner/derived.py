"""What of an agent's files is the released code in another place: withheld with it.

The re-run without the released code must also go without every copy of it: a file with the
bytes of a released one, anywhere in the workspace or the agent's environment (``pip install
./code`` copies it into site-packages); a released file the agent changed in place; and a
*near-copy*, a program most of whose lines are a released program's (the repository copied to a
writable folder and edited, or ported by a tool). A program of the agent's own stays: it is
what an honest agent adds, and if the number still comes out with it alone, it was not the
released code that computed it.

Changing the release's files makes them withheld, never kept: an agent gains nothing by
disguising released code as its own, since code withheld only ever makes its own run fail.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
from pathlib import Path

from reclaim.judge import is_code
from reclaim.sandbox import untrusted

NEAR_SHARE = 0.5
"""A program at least this share of whose lines are released code's lines is a near-copy."""
MIN_LINES = 5
MAX_READ = 4 << 20
_SITE = "site-packages/"


def _lines(data: bytes) -> list[bytes]:
    """A program's meaningful lines, stripped: no blank line, no comment-only line."""
    out = []
    for line in data.splitlines():
        s = line.strip()
        if s and not s.startswith((b"#", b"//", b"%", b"--")):
            out.append(s)
    return out


def _key(line: bytes) -> bytes:
    return hashlib.blake2b(line, digest_size=8).digest()


class ReleasedCode:
    """The released code's files by size and digest, and its programs' lines."""

    def __init__(self, code_root: Path, files: dict[str, str]):
        self.digests = set(files.values())
        self.sizes: set[int] = set()
        self.lines: set[bytes] = set()
        for rel in files:
            try:
                data, size = untrusted.read_head(code_root, rel, MAX_READ)
            except (OSError, untrusted.Untrusted):
                continue
            self.sizes.add(size)
            if is_code(Path(rel), data[:2]):
                self.lines.update(_key(x) for x in _lines(data))

    def is_copy(self, root: Path, rel: str, size: int) -> bool:
        if size not in self.sizes:
            return False
        try:
            return untrusted.sha256(root, rel, limit=MAX_READ) in self.digests
        except (OSError, untrusted.Untrusted):
            return False

    def is_near_copy(self, root: Path, rel: str) -> bool:
        if not self.lines:
            return False
        try:
            data, _ = untrusted.read_head(root, rel, MAX_READ)
        except (OSError, untrusted.Untrusted):
            return False
        if not is_code(Path(rel), data[:2]):
            return False
        lines = _lines(data)
        if len(lines) < MIN_LINES:
            return False
        return sum(_key(x) in self.lines for x in lines) >= NEAR_SHARE * len(lines)


def derived_in_workspace(ws: Path, code: ReleasedCode, provided: dict[str, str]) -> list[str]:
    """Workspace paths that are the released code in another place: copies, near-copies, and the
    released files the agent changed in place (under code/)."""
    out = []
    for e in untrusted.walk(ws):
        if e.kind != "file" or not e.plain:
            continue
        if e.rel in provided and e.rel.startswith("code/"):
            out.append(e.rel)  # the release's own file, changed in place or not
        elif code.is_copy(ws, e.rel, e.size) or code.is_near_copy(ws, e.rel):
            out.append(e.rel)
    return sorted(out)


def derived_in_environment(env_root: Path, code: ReleasedCode) -> list[str]:
    """Paths under the agent's environment that are the released code: byte copies, and every
    file of a distribution installed from a local folder (PEP 610 direct_url.json, file://)."""
    out = set()
    local = []
    for e in untrusted.walk(env_root):
        if e.kind != "file" or not e.plain:
            continue
        if e.rel.endswith(".dist-info/direct_url.json"):
            local.append(e.rel)
        elif _SITE in e.rel and code.is_copy(env_root, e.rel, e.size):
            out.add(e.rel)
    for rel in local:
        try:
            info = json.loads(untrusted.read_head(env_root, rel, 1 << 16)[0])
        except (OSError, ValueError, untrusted.Untrusted):
            continue
        if not str(info.get("url", "")).startswith("file://"):
            continue
        site = rel.split(".dist-info/")[0].rsplit("/", 1)[0]
        try:
            record, _ = untrusted.read_head(env_root, posixpath.join(posixpath.dirname(rel), "RECORD"), 1 << 22)
        except (OSError, untrusted.Untrusted):
            continue
        for row in record.decode("utf-8", "replace").splitlines():
            path = row.split(",", 1)[0]
            full = posixpath.normpath(posixpath.join(site, path))
            if path and not full.startswith("..") and not path.startswith("/"):
                out.add(full)
    return sorted(out)
