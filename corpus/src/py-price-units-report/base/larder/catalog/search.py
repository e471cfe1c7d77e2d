"""Product search by name: every word typed must appear in the name."""

from . import repository
from .models import Product

MAX_RESULTS = 50


def words(text: str) -> list[str]:
    return [w for w in text.lower().split() if w]


def matches(product: Product, wanted: list[str]) -> bool:
    name = product.name.lower()
    return all(w in name for w in wanted)


def by_name(conn, text: str) -> list[Product]:
    wanted = words(text)
    found = [p for p in repository.active_products(conn) if matches(p, wanted)]
    # In-stock products first, then alphabetical; the shop front shows the first page only.
    found.sort(key=lambda p: (not p.in_stock, p.name))
    return found[:MAX_RESULTS]
