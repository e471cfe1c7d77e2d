from .models import Order

_ORDERS: dict[str, Order] = {}


def find_order(order_id: str) -> Order | None:
    return _ORDERS.get(order_id)


def save_order(order: Order) -> None:
    _ORDERS[order.id] = order
