"""A basket holds the price each line had when it was added."""

from dataclasses import dataclass, field
from uuid import UUID


@dataclass
class BasketLine:
    sku: str
    quantity: int
    unit_pence: int

    @property
    def pence(self) -> int:
        return self.quantity * self.unit_pence


@dataclass
class Basket:
    id: UUID
    customer_id: str | None
    lines: list[BasketLine] = field(default_factory=list)

    def line(self, sku: str) -> BasketLine | None:
        return next((l for l in self.lines if l.sku == sku), None)

    @property
    def goods_pence(self) -> int:
        return sum(l.pence for l in self.lines)
