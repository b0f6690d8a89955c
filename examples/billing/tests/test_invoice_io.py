from pathlib import Path

from billing.invoice_io import parse_invoice, render_invoice

INVOICE = Path(__file__).resolve().parents[1] / "oracle" / "fixtures" / "invoice_v1.json"


def test_the_locked_invoice_renders_byte_for_byte():
    data = INVOICE.read_bytes()
    invoice = parse_invoice(data)
    assert invoice["id"] == "inv-1"
    assert render_invoice(invoice) == data
