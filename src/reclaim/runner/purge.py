"""What of an agent's own files the re-runs may use: source text, never what cannot be read as one.

The agent's programs are evidence: the literal checks read them, and a number written in one is
found and altered. A file that cannot be read so is not: compiled bytecode (``__pycache__``, a
sourceless ``.pyc`` imported by one line), a binary (an executable, a pickle, an array, an
archive, an encrypted answer beside the release), an encoded blob in a text file (a long run of
base64 or hex), and a large data file the agent wrote in its own phase. Such a file could hold
the answer in a form no check reads, and the run that counts would replay it. So none of them
is in any re-run's workspace (nor among the agent's changes to a material shown there):
``reproduce.sh`` must make again what it needs of them (a cache, a compiled extension, a
preprocessed table, trained weights), which costs honest work time, not its result. A
``reproduce.sh`` that needs one fails, and the verdict says which files were left out and why.

Kept: what the harness provided, installed packages and package caches the scope vouches for
(judge/scope.py), and the agent's text files: programs of any size, other text up to
DATA_BYTES. Under ``budget.reexec.mode: evaluate`` nothing is purged: the re-run evaluates
the artefacts recorded training made (judge/training.py checks how they were made).
"""

from __future__ import annotations

import re
from pathlib import Path

from reclaim.judge import is_code
from reclaim.sandbox import untrusted

DATA_BYTES = 256 << 10
"""Text that is not a program, past this size, is data the agent wrote: made again by reproduce.sh."""
BLOB = re.compile(rb"[A-Za-z0-9+/=_-]{512,}")
"""A run of base64 or hex this long, with no space: an encoded blob, not text a check can read."""
_BYTECODE = re.compile(r"(^|/)__pycache__/|\.py[co]$")


def why_opaque(root: Path, rel: str) -> str | None:
    """Why the agent's file ``rel`` is not evidence a re-run may use (None: it is source text)."""
    if _BYTECODE.search(rel):
        return "compiled bytecode"
    try:
        head, size = untrusted.read_head(root, rel, DATA_BYTES)
    except (OSError, untrusted.Untrusted):
        return None  # not a plain file it can read: the copy leaves it out anyway
    program = is_code(Path(rel), head[:2])
    try:
        head.decode("utf-8")
        binary = b"\0" in head
    except UnicodeDecodeError as e:
        binary = size <= len(head) or e.start < len(head) - 3  # a character cut at the limit is not binary
    if binary:
        return "binary (not text a check can read: an executable, a pickle, an array, an archive)"
    if BLOB.search(head) and not rel.lower().endswith(".ipynb"):  # (a notebook's saved images are base64)
        return "an encoded blob (a long run of base64 or hex)"
    if not program and size > DATA_BYTES:
        return f"data the agent wrote ({size:,} bytes of text that is not a program)"
    return None


def opaque(root: Path, sources: list[str]) -> dict[str, str]:
    """Among the agent's own files (``sources``, as the scope chose them), those a re-run leaves
    out -> why."""
    out = {}
    for rel in sources:
        if (why := why_opaque(root, rel)) is not None:
            out[rel] = why
    return out
