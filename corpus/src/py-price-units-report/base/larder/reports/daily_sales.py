"""Yesterday's sales, from the orders as they were placed."""

from datetime import date, datetime, time, timedelta, timezone


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time.min, tzinfo=timezone.utc)
    return start, start + timedelta(days=1)


def summary(conn, day: date) -> dict:
    start, end = day_bounds(day)
    row = conn.execute(
        "SELECT count(*) AS orders, coalesce(sum(goods_pence), 0) AS goods, "
        "coalesce(sum(delivery_pence), 0) AS delivery FROM orders WHERE placed_at >= %s AND placed_at < %s",
        (start, end),
    ).fetchone()
    top = conn.execute(
        "SELECT sku, sum(quantity) AS units FROM order_lines JOIN orders ON orders.id = order_lines.order_id "
        "WHERE placed_at >= %s AND placed_at < %s GROUP BY sku ORDER BY units DESC LIMIT 10",
        (start, end),
    ).fetchall()
    return {
        "day": day.isoformat(),
        "orders": row["orders"],
        "goods_pence": row["goods"],
        "delivery_pence": row["delivery"],
        "top_skus": [(r["sku"], r["units"]) for r in top],
    }


def report(conn, day: date | None = None) -> str:
    s = summary(conn, day or date.today() - timedelta(days=1))
    lines = [
        f"Sales on {s['day']}: {s['orders']} orders",
        f"  goods    £{s['goods_pence'] / 100:,.2f}",
        f"  delivery £{s['delivery_pence'] / 100:,.2f}",
        "Best sellers:",
    ]
    lines += [f"  {sku:<12} {units:>6}" for sku, units in s["top_skus"]]
    return "\n".join(lines)
