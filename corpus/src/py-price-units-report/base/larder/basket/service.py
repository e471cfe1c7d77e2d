"""Changing a basket. Prices are fixed when a line is added, not at checkout."""

from uuid import UUID, uuid4

from ..catalog import repository as catalog
from ..catalog.pricing import price_pence
from .models import Basket, BasketLine

MAX_QUANTITY = 24


class BasketError(Exception):
    """A basket change the shopper has to correct."""


def new_basket(conn, customer_id: str | None) -> Basket:
    basket = Basket(id=uuid4(), customer_id=customer_id)
    conn.execute("INSERT INTO baskets (id, customer_id) VALUES (%s, %s)", (basket.id, customer_id))
    return basket


def load(conn, basket_id: UUID) -> Basket | None:
    row = conn.execute("SELECT id, customer_id FROM baskets WHERE id = %s", (basket_id,)).fetchone()
    if row is None:
        return None
    lines = conn.execute("SELECT sku, quantity, unit_pence FROM basket_lines WHERE basket_id = %s", (basket_id,))
    return Basket(row["id"], row["customer_id"], [BasketLine(**l) for l in lines])


def add(conn, basket: Basket, sku: str, quantity: int) -> BasketLine:
    product = catalog.get(conn, sku)
    if product is None or not product.active:
        raise BasketError(f"{sku} is not for sale")
    existing = basket.line(sku)
    wanted = quantity + (existing.quantity if existing else 0)
    if wanted > MAX_QUANTITY:
        raise BasketError(f"at most {MAX_QUANTITY} of one product per order")
    if wanted > product.on_hand:
        raise BasketError(f"only {product.on_hand} of {product.name} left")
    if existing:
        existing.quantity = wanted
        line = existing
    else:
        line = BasketLine(sku=sku, quantity=quantity, unit_pence=price_pence(product))
        basket.lines.append(line)
    conn.execute(
        "INSERT INTO basket_lines (basket_id, sku, quantity, unit_pence) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (basket_id, sku) DO UPDATE SET quantity = EXCLUDED.quantity",
        (basket.id, sku, line.quantity, line.unit_pence),
    )
    return line


def remove(conn, basket: Basket, sku: str) -> None:
    basket.lines = [l for l in basket.lines if l.sku != sku]
    conn.execute("DELETE FROM basket_lines WHERE basket_id = %s AND sku = %s", (basket.id, sku))
