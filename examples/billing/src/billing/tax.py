"""Tax on an amount in cents, at a rate in basis points (pure)."""


def tax(cents: int, rate_bp: int) -> int:
    if cents < 0 or rate_bp < 0:
        raise ValueError("amounts and rates are non-negative")
    return (cents * rate_bp + 5_000) // 10_000


def amount_due(cents: int, rate_bp: int) -> int:
    return cents + tax(cents, rate_bp)
