"""Products that have not sold for a while but still take shelf space."""

from datetime import datetime, timedelta, timezone

from ..catalog import repository
from ..catalog.models import Product

QUIET_DAYS = 21


def last_sold(conn) -> dict[str, datetime]:
    rows = conn.execute(
        "SELECT sku, max(placed_at) AS last FROM order_lines JOIN orders ON orders.id = order_lines.order_id "
        "GROUP BY sku"
    )
    return {r["sku"]: r["last"] for r in rows}


def slow_movers(conn, now: datetime | None = None) -> list[tuple[Product, datetime | None]]:
    now = now or datetime.now(timezone.utc)
    cutoff = now - timedelta(days=QUIET_DAYS)
    sold = last_sold(conn)
    quiet = []
    for product in repository.active_products(conn):
        when = sold.get(product.sku)
        if product.on_hand > 0 and (when is None or when < cutoff):
            quiet.append((product, when))
    quiet.sort(key=lambda pw: (pw[1] is not None, pw[1] or now))
    return quiet
