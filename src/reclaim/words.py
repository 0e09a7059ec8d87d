"""Numbers in words for people: counts with their noun in the right number."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 seed', '2 seeds'; ``many`` for irregular plurals ('1 retry', '2 retries')."""
    return f"{n} {word if n == 1 else many or word + 's'}"
