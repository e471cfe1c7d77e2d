from dataclasses import dataclass, field
from datetime import datetime

VAT_RATE_PERCENT = 20


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

    @property
    def total_cents(self) -> int:
        return sum(line.total_cents for line in self.lines) - self.discount_cents

    @property
    def tax_cents(self) -> int:
        # Rounded half up, as the invoice printer does.
        return (self.total_cents * VAT_RATE_PERCENT + 50) // 100

    @property
    def amount_due_cents(self) -> int:
        return self.total_cents + self.tax_cents
