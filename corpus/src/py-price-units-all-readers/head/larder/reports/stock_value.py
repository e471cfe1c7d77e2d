"""The morning stock report: what the goods on the shelves are worth at our prices."""

from collections import defaultdict
from decimal import Decimal

from ..catalog import repository
from ..catalog.models import Product


def value_pounds(products: list[Product]) -> Decimal:
    return sum((p.unit_price * p.on_hand for p in products if p.active), Decimal("0.00"))


def by_category(products: list[Product]) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = defaultdict(lambda: Decimal("0.00"))
    for p in products:
        if p.active:
            totals[p.category] += p.unit_price * p.on_hand
    return dict(totals)


def pounds(amount: Decimal) -> str:
    return f"£{amount:,.2f}"


def report(conn) -> str:
    products = repository.all_products(conn)
    lines = [f"Stock at selling prices: {pounds(value_pounds(products))}", ""]
    for category, amount in sorted(by_category(products).items(), key=lambda kv: -kv[1]):
        lines.append(f"  {category:<20} {pounds(amount):>14}")
    return "\n".join(lines)
