"""Orders are written once, at checkout, from the basket's recorded prices."""

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID, uuid4

from ..basket.models import Basket


@dataclass(frozen=True)
class Order:
    id: UUID
    customer_id: str
    placed_at: datetime
    goods_pence: int
    delivery_pence: int
    slot_id: int | None

    @property
    def total_pence(self) -> int:
        return self.goods_pence + self.delivery_pence


def place(conn, basket: Basket, customer_id: str, delivery_pence: int, slot_id: int | None) -> Order:
    order_id = uuid4()
    row = conn.execute(
        "INSERT INTO orders (id, customer_id, goods_pence, delivery_pence, slot_id) "
        "VALUES (%s, %s, %s, %s, %s) RETURNING placed_at",
        (order_id, customer_id, basket.goods_pence, delivery_pence, slot_id),
    ).fetchone()
    with conn.cursor() as cur:
        cur.executemany(
            "INSERT INTO order_lines (order_id, sku, quantity, unit_pence) VALUES (%s, %s, %s, %s)",
            [(order_id, l.sku, l.quantity, l.unit_pence) for l in basket.lines],
        )
    return Order(order_id, customer_id, row["placed_at"], basket.goods_pence, delivery_pence, slot_id)
