"""Prices of models in USD per million tokens (input, output), for judges and agents alike;
override with a file."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

# Public list prices as of late 2025; check your provider and pass --judge-prices to override.
PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o": (2.50, 10.00),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-5": (1.25, 10.00),
    "gpt-5-mini": (0.25, 2.00),
    "o3": (2.00, 8.00),
    "o4-mini": (1.10, 4.40),
    "claude-sonnet-4-5": (3.00, 15.00),
    "claude-haiku-4-5": (1.00, 5.00),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.5-flash": (0.30, 2.50),
}


def load_prices(path: str | None) -> dict[str, tuple[float, float]]:
    table = dict(PRICES)
    if path:
        text = Path(path).read_text(encoding="utf-8")
        data = json.loads(text) if path.endswith(".json") else yaml.safe_load(text)
        for model, p in (data or {}).items():
            table[model] = (float(p["input"]), float(p["output"]))
    return table


def cost(table: dict[str, tuple[float, float]], model: str, tokens_in: int, tokens_out: int) -> float | None:
    """USD for one call, or None when the model has no price (local models: add one as 0)."""
    price = table.get(model)
    if price is None:
        # dated snapshots ('gpt-4o-2024-08-06') cost what their family costs
        family = max((m for m in table if model.startswith(m + "-")), key=len, default=None)
        price = table.get(family) if family else None
    if price is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1e6
