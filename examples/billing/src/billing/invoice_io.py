"""Invoice wire format: decode and encode, parse and render (io)."""
import json
from typing import Any, Dict


def decode(text: str) -> Dict[str, Any]:
    doc = json.loads(text)
    lines = [(str(name), int(cents)) for name, cents in doc["lines"]]
    if any(cents < 0 for _, cents in lines):
        raise ValueError("an invoice line cannot be negative")
    return {"id": str(doc["id"]), "lines": lines}


def encode(invoice: Dict[str, Any]) -> str:
    doc = {"id": invoice["id"], "lines": [list(line) for line in invoice["lines"]]}
    return json.dumps(doc, sort_keys=True, indent=2) + "\n"


def parse_invoice(data: bytes) -> Dict[str, Any]:
    return decode(data.decode("utf-8"))


def render_invoice(invoice: Dict[str, Any]) -> bytes:
    return encode(invoice).encode("utf-8")
