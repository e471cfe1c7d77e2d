from dataclasses import dataclass, field
from datetime import datetime


@dataclass
class Line:
    sku: str
    name: str
    quantity: int
    unit_cents: int

    @property
    def total_cents(self) -> int:
        return self.quantity * self.unit_cents


@dataclass
class Order:
    id: str
    customer_id: str
    placed_at: datetime
    lines: list[Line] = field(default_factory=list)
    discount_cents: int = 0
    # ISO 4217 code; orders placed before multi-currency support are in pounds.
    currency: str = "GBP"

    @property
    def total_cents(self) -> int:
        return sum(line.total_cents for line in self.lines) - self.discount_cents
