"""The JSON shapes the API answers with. web/ reads these fields by name."""

from .models import Line, Order


def line_json(line: Line) -> dict:
    return {
        "sku": line.sku,
        "name": line.name,
        "quantity": line.quantity,
        "unit_cents": line.unit_cents,
    }


def order_json(order: Order) -> dict:
    return {
        "id": order.id,
        "placed_at": order.placed_at.isoformat(),
        "lines": [line_json(line) for line in order.lines],
        "discount_cents": order.discount_cents,
        "total_cents": order.total_cents,
    }
