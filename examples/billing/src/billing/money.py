"""Splitting money without losing a cent (pure)."""
from typing import List


def split(total_cents: int, parts: int) -> List[int]:
    if parts <= 0:
        raise ValueError("parts must be positive")
    base, remainder = divmod(total_cents, parts)
    return [base + (1 if i < remainder else 0) for i in range(parts)]
