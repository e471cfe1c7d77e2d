"""Checkout: book a slot, charge the card, write the order, move stock."""

import os

from ..basket.models import Basket
from ..catalog import repository as catalog
from ..delivery import rates, slots
from ..loyalty import points
from . import orders, payments


class CheckoutError(Exception):
    """Something the shopper can fix (a full slot, an empty basket)."""


def checkout(conn, basket: Basket, customer_id: str, card_token: str, slot_id: int, postcode: str) -> orders.Order:
    if not basket.lines:
        raise CheckoutError("the basket is empty")
    with conn.transaction():
        if not slots.book(conn, slot_id):
            raise CheckoutError("that delivery slot has just filled up; pick another")
        delivery = rates.delivery_pence(basket.goods_pence, postcode)
        order = orders.place(conn, basket, customer_id, delivery, slot_id)
        payments.charge(card_token, order.total_pence, str(order.id), os.environ["LARDER_PAY_KEY"])
        for line in basket.lines:
            catalog.adjust_stock(conn, line.sku, -line.quantity)
        points.award(conn, customer_id, order.goods_pence)
    return order
