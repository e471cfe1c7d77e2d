"""The morning stock report: what the goods on the shelves are worth at our prices."""

from collections import defaultdict

from ..catalog import repository
from ..catalog.models import Product


def value_pence(products: list[Product]) -> int:
    return sum(p.unit_price * p.on_hand for p in products if p.active)


def by_category(products: list[Product]) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for p in products:
        if p.active:
            totals[p.category] += p.unit_price * p.on_hand
    return dict(totals)


def pounds(pence: int) -> str:
    return f"£{pence / 100:,.2f}"


def report(conn) -> str:
    products = repository.all_products(conn)
    lines = [f"Stock at selling prices: {pounds(value_pence(products))}", ""]
    for category, pence in sorted(by_category(products).items(), key=lambda kv: -kv[1]):
        lines.append(f"  {category:<20} {pounds(pence):>14}")
    return "\n".join(lines)
