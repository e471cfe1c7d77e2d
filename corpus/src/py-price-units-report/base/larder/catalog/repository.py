"""Reading and writing products."""

from .models import Offer, Product

_COLUMNS = "sku, name, category, unit_price, on_hand, active"


def _product(row: dict) -> Product:
    return Product(
        sku=row["sku"],
        name=row["name"],
        category=row["category"],
        unit_price=row["unit_price"],
        on_hand=row["on_hand"],
        active=row["active"],
    )


def get(conn, sku: str) -> Product | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM products WHERE sku = %s", (sku,)).fetchone()
    return _product(row) if row else None


def active_products(conn, category: str | None = None) -> list[Product]:
    sql = f"SELECT {_COLUMNS} FROM products WHERE active"
    params: tuple = ()
    if category:
        sql += " AND category = %s"
        params = (category,)
    return [_product(r) for r in conn.execute(sql + " ORDER BY name", params)]


def all_products(conn) -> list[Product]:
    return [_product(r) for r in conn.execute(f"SELECT {_COLUMNS} FROM products ORDER BY sku")]


def save_price(conn, sku: str, unit_price) -> None:
    updated = conn.execute("UPDATE products SET unit_price = %s WHERE sku = %s", (unit_price, sku)).rowcount
    if updated == 0:
        raise LookupError(f"no product with SKU {sku}")


def adjust_stock(conn, sku: str, delta: int) -> None:
    conn.execute("UPDATE products SET on_hand = on_hand + %s WHERE sku = %s", (delta, sku))


def offers(conn) -> dict[str, Offer]:
    rows = conn.execute("SELECT sku, buy, pay FROM offers WHERE ends_at > now()")
    return {r["sku"]: Offer(r["sku"], r["buy"], r["pay"]) for r in rows}
