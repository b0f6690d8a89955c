"""The invoice schema (schema)."""
from typing import Any, Dict, List

REQUIRED = ("id", "lines")


def problems(doc: Dict[str, Any]) -> List[str]:
    out = [f"missing {key}" for key in REQUIRED if key not in doc]
    for i, line in enumerate(doc.get("lines", [])):
        if not (isinstance(line, (list, tuple)) and len(line) == 2 and isinstance(line[1], int) and line[1] >= 0):
            out.append(f"line {i} is not [name, non-negative cents]")
    return out
