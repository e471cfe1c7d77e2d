"""Refunding part of an order: a missing or damaged item, at the price paid."""

from uuid import UUID

from . import payments


class RefundError(Exception):
    pass


def refundable_pence(conn, order_id: UUID, sku: str, quantity: int) -> int:
    row = conn.execute(
        "SELECT quantity, unit_pence, coalesce((SELECT sum(quantity) FROM refunds "
        "WHERE refunds.order_id = order_lines.order_id AND refunds.sku = order_lines.sku), 0) AS refunded "
        "FROM order_lines WHERE order_id = %s AND sku = %s",
        (order_id, sku),
    ).fetchone()
    if row is None:
        raise RefundError(f"{sku} is not part of order {order_id}")
    left = row["quantity"] - row["refunded"]
    if quantity > left:
        raise RefundError(f"only {left} of {sku} left to refund on order {order_id}")
    return quantity * row["unit_pence"]


def refund(conn, order_id: UUID, sku: str, quantity: int, charge_id: str, api_key: str) -> int:
    pence = refundable_pence(conn, order_id, sku, quantity)
    with conn.transaction():
        conn.execute(
            "INSERT INTO refunds (order_id, sku, quantity, pence) VALUES (%s, %s, %s, %s)",
            (order_id, sku, quantity, pence),
        )
        payments.refund(charge_id, pence, f"{order_id}/{sku}", api_key)
    return pence
