"""Reading a results.json the agent (or its reproduce.sh) wrote. Nothing in it is trusted."""

from __future__ import annotations

import json
import math
from pathlib import Path

MAX_BYTES = 1 << 20


def read_metric(path: Path, metric: str) -> tuple[float | None, str]:
    """(value, '') when ``path`` holds a finite number under ``metric``, else (None, why not)."""
    if not path.is_file():
        return None, f"{path.name} is missing"
    if path.stat().st_size > MAX_BYTES:
        return None, f"{path.name} is larger than {MAX_BYTES} bytes"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        return None, f"{path.name} is not valid JSON: {e}"
    if not isinstance(data, dict):
        return None, f"{path.name} is not a JSON object"
    if metric not in data:
        return None, f"{path.name} has no '{metric}' (keys: {', '.join(map(str, data)) or 'none'})"
    value = data[metric]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None, f"{path.name}: '{metric}' is {value!r}, not a finite number"
    return float(value), ""
