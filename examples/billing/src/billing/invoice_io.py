"""Invoice wire format: parse and render (io)."""
import json
from typing import Any, Dict


def parse_invoice(data: bytes) -> Dict[str, Any]:
    doc = json.loads(data.decode("utf-8"))
    return {"id": str(doc["id"]), "lines": [(str(n), int(c)) for n, c in doc["lines"]]}


def render_invoice(invoice: Dict[str, Any]) -> bytes:
    doc = {"id": invoice["id"], "lines": [list(line) for line in invoice["lines"]]}
    return (json.dumps(doc, sort_keys=True, indent=2) + "\n").encode("utf-8")
