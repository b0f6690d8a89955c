"""Failure signatures: what a freeze is keyed on, so renames and moves cannot dodge it.

A signature hashes the normalised test name (no module path, no parametrize id, no agent-style
suffix such as `_v2`), the exception type, the innermost frames without line numbers, and the
parameter shape (names and types, never values).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence, Tuple

AGENT_SUFFIX_RE = re.compile(r"(?:_v\d+|_agent\d*|_retry\d*|_copy\d*)$")
LINE_NUMBER_RE = re.compile(r":\d+(?=:|$)")
TOP_FRAMES = 3
SIGNATURE_LEN = 16
SIGNATURE_RE = re.compile(r"^[0-9a-f]{16}$")


def normalize_name(name: str) -> str:
    """Strip module path, class path, parametrize id and any stack of agent suffixes."""
    leaf = name.split("::")[-1].split("[", 1)[0]
    while True:
        stripped = AGENT_SUFFIX_RE.sub("", leaf)
        if stripped == leaf or not stripped:
            return leaf
        leaf = stripped


@dataclass(frozen=True)
class Frame:
    """One traceback frame as (file, function); the line number is deliberately absent."""

    path: str
    function: str


def normalize_frame(frame: Frame, test_path: str) -> str:
    """`<test>:name` for frames in the test file itself (so moving it changes nothing),
    `basename:function` elsewhere."""
    path = LINE_NUMBER_RE.sub("", frame.path.replace("\\", "/"))
    if path == test_path:
        return f"<test>:{normalize_name(frame.function)}"
    return f"{path.rsplit('/', 1)[-1]}:{frame.function}"


def parameter_shape(params: Mapping[str, object]) -> Tuple[str, ...]:
    return tuple(f"{name}:{type(value).__name__}" for name, value in sorted(params.items()))


def failure_signature(
    nodeid: str,
    exception_type: str,
    frames: Sequence[Frame],
    shape: Iterable[str] = (),
) -> str:
    """`frames` run outermost to innermost (traceback order); the innermost three are kept."""
    test_path = nodeid.split("::", 1)[0]
    payload = {
        "test": normalize_name(nodeid),
        "exception": exception_type,
        "frames": [normalize_frame(f, test_path) for f in list(frames)[-TOP_FRAMES:]],
        "shape": sorted(shape),
    }
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    return hashlib.sha256(blob).hexdigest()[:SIGNATURE_LEN]
