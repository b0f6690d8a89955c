from hypothesis import given
from hypothesis import strategies as st

from billing.invoice_io import decode, encode, parse_invoice, render_invoice

invoices = st.fixed_dictionaries({
    "id": st.text(min_size=1, max_size=10),
    "lines": st.lists(st.tuples(st.text(max_size=10), st.integers(0, 10**6)), max_size=5),
})


@given(invoices)
def test_render_then_parse_round_trips(invoice):
    assert parse_invoice(render_invoice(invoice)) == invoice


@given(invoices)
def test_decode_inverts_encode(invoice):
    assert decode(encode(invoice)) == invoice
