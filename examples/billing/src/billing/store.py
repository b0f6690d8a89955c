"""An account store with credits and debits (state)."""
import json
from typing import Dict


class Store:
    def __init__(self, balances: Dict[str, int]) -> None:
        self.balances = dict(balances)

    @classmethod
    def from_json(cls, text: str) -> "Store":
        return cls({k: int(v) for k, v in json.loads(text)["balances"].items()})

    def apply_credit(self, account: str, cents: int) -> int:
        if cents <= 0:
            raise ValueError("a credit is positive")
        self.balances[account] = self.balances.get(account, 0) + cents
        return self.balances[account]

    def total(self) -> int:
        return sum(self.balances.values())
