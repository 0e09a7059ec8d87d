"""Reading a results.json the agent (or its reproduce.sh) wrote. Nothing in it is trusted.

It is read as an adversary's file (sandbox/untrusted.py): a link, a FIFO, a folder, an
oversized, deeply nested or non-UTF-8 file, or a number of thousands of digits is the agent's
failure to leave a usable result, never a harness error.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from reclaim.sandbox import untrusted

MAX_BYTES = 1 << 20
MAX_DEPTH = 32


def _depth(text: str) -> int:
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def load_result(root: Path, rel: str) -> tuple[dict | None, str]:
    """An agent's result file as data, read as the agent's (no link followed, bounded); or None
    and why it cannot be used."""
    try:
        raw = untrusted.read_bytes(root, rel, MAX_BYTES)
    except untrusted.Untrusted as e:  # its message may name the file already: never twice
        why = str(e).removeprefix(f"'{rel}': ")
        return None, f"{rel}: {why}"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        return None, f"{rel} is not UTF-8: {e}"
    if _depth(text) > MAX_DEPTH:
        return None, f"{rel} is nested deeper than {MAX_DEPTH} levels"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:  # ValueError covers integers of too many digits
        return None, f"{rel} is not valid JSON: {str(e)[:200]}"
    if not isinstance(data, dict):
        return None, f"{rel} is not a JSON object"
    return data, ""


def _pick(data: dict, rel: str, metric: str) -> tuple[float | None, str]:
    if metric not in data:
        keys = ", ".join(str(k)[:40] for k in list(data)[:20])
        return None, f"{rel} has no '{metric}' (keys: {keys or 'none'})"
    value = data[metric]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"{rel}: '{metric}' is {str(value)[:80]!r}, not a finite number"
    try:
        value = float(value)
    except OverflowError:
        return None, f"{rel}: '{metric}' is too large to be a finite number"
    if not math.isfinite(value):
        return None, f"{rel}: '{metric}' is {value!r}, not a finite number"
    return value, ""


def read_metric(root: Path, rel: str, metric: str) -> tuple[float | None, str]:
    """(value, '') when ``root/rel`` holds a finite number under ``metric``, else (None, why not)."""
    return read_metrics(root, rel, [metric])[metric]


def read_metrics(root: Path, rel: str, metrics: list[str]) -> dict[str, tuple[float | None, str]]:
    """metric -> (value, '') or (None, why not), reading ``root/rel`` once."""
    data, why = load_result(root, rel)
    if data is None:
        return dict.fromkeys(metrics, (None, why))
    return {m: _pick(data, rel, m) for m in metrics}
