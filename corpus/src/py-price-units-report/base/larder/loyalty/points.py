"""Loyalty points: earned on goods (not delivery), spent as money off."""

POINTS_PER_POUND = 1
PENCE_PER_POINT = 1


def earned(goods_pence: int, per_pound: int = POINTS_PER_POUND) -> int:
    return goods_pence // 100 * per_pound


def award(conn, customer_id: str, goods_pence: int) -> int:
    points = earned(goods_pence)
    conn.execute(
        "INSERT INTO loyalty_accounts (customer_id, points) VALUES (%s, %s) "
        "ON CONFLICT (customer_id) DO UPDATE SET points = loyalty_accounts.points + EXCLUDED.points",
        (customer_id, points),
    )
    return points


def balance(conn, customer_id: str) -> int:
    row = conn.execute("SELECT points FROM loyalty_accounts WHERE customer_id = %s", (customer_id,)).fetchone()
    return row["points"] if row else 0


def redeem(conn, customer_id: str, points: int) -> int:
    """Spends points; returns the pence they are worth. Refuses to go below zero."""
    if points <= 0:
        raise ValueError("redeem a positive number of points")
    updated = conn.execute(
        "UPDATE loyalty_accounts SET points = points - %s WHERE customer_id = %s AND points >= %s",
        (points, customer_id, points),
    ).rowcount
    if updated == 0:
        raise ValueError(f"{customer_id} has fewer than {points} points")
    return points * PENCE_PER_POINT
