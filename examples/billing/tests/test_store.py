from pathlib import Path

from billing.store import Store

SEED = Path(__file__).resolve().parents[1] / "oracle" / "fixtures" / "store_seed.json"


def test_credit_on_the_locked_seed():
    store = Store.from_json(SEED.read_text())
    assert store.total() == 1_500
    assert store.apply_credit("acme", 250) == 1_250
    assert store.total() == 1_750
