"""Locked-fixture digests: the field format and the drift reason line."""
from __future__ import annotations

import hashlib
import re
from typing import Optional

SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def validate_sha256(value: str) -> str:
    """Normalise a `sha256` field value, or raise ValueError saying what is wrong with it."""
    normalised = value.strip().lower()
    if len(normalised) != 64:
        raise ValueError(
            f"sha256 must be 64 hex characters, got {len(normalised)} ({value!r})"
        )
    if not SHA256_RE.match(normalised):
        raise ValueError(f"sha256 must contain only hex digits 0-9a-f, got {value!r}")
    return normalised


def drift_line(address: str, expected: str, actual: Optional[str]) -> Optional[str]:
    """The FIXTURE_DRIFT reason line, or None when the bytes still match the lock."""
    if actual == expected:
        return None
    shown = actual[:12] if actual else "missing"
    return f"FIXTURE_DRIFT {address} expected={expected[:12]} actual={shown}"
