"""Purchase orders to suppliers. Supplier prices are what we pay, in pounds."""

from dataclasses import dataclass, field
from decimal import Decimal

from ..notifications.templates import PURCHASE_ORDER, purchase_order_line


@dataclass
class PurchaseOrderLine:
    sku: str
    quantity: int
    unit_price: Decimal  # pounds, as the supplier invoices

    @property
    def cost(self) -> Decimal:
        return self.unit_price * self.quantity


@dataclass
class PurchaseOrder:
    id: int
    supplier: str
    lines: list[PurchaseOrderLine] = field(default_factory=list)

    @property
    def cost(self) -> Decimal:
        return sum((l.cost for l in self.lines), Decimal("0.00"))

    def as_text(self) -> str:
        body = "\n".join(purchase_order_line(l.sku, l.quantity, f"£{l.unit_price:.2f}") for l in self.lines)
        return PURCHASE_ORDER.format(po_id=self.id, lines=body)


def load(conn, po_id: int) -> PurchaseOrder:
    head = conn.execute("SELECT id, supplier FROM purchase_orders WHERE id = %s", (po_id,)).fetchone()
    if head is None:
        raise LookupError(f"no purchase order {po_id}")
    rows = conn.execute("SELECT sku, quantity, unit_price FROM purchase_order_lines WHERE po_id = %s", (po_id,))
    return PurchaseOrder(head["id"], head["supplier"], [PurchaseOrderLine(**r) for r in rows])
