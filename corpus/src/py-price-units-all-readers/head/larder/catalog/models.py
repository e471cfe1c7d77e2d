"""Products as the catalogue stores them."""

from dataclasses import dataclass
from decimal import Decimal


@dataclass
class Product:
    sku: str
    name: str
    category: str
    unit_price: Decimal  # pounds, two decimals
    on_hand: int = 0
    active: bool = True

    @property
    def in_stock(self) -> bool:
        return self.active and self.on_hand > 0


@dataclass(frozen=True)
class Offer:
    """A multi-buy offer such as 3 for 2: buy `buy`, pay for `pay`."""

    sku: str
    buy: int
    pay: int

    def __post_init__(self) -> None:
        if not 0 < self.pay < self.buy:
            raise ValueError(f"offer on {self.sku}: pay ({self.pay}) must be between 1 and buy ({self.buy}) - 1")
