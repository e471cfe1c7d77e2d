"""Van routes for a slot: orders grouped by postcode district, a van's load at most."""

from collections import defaultdict
from dataclasses import dataclass, field

VAN_CRATES = 40
CRATES_PER_ORDER = 3


@dataclass
class Route:
    van: int
    districts: list[str] = field(default_factory=list)
    order_ids: list[str] = field(default_factory=list)

    @property
    def crates(self) -> int:
        return len(self.order_ids) * CRATES_PER_ORDER


def plan(orders: list[tuple[str, str]]) -> list[Route]:
    """`orders` are (order id, postcode district). Districts stay on one van when they fit."""
    by_district: dict[str, list[str]] = defaultdict(list)
    for order_id, district in orders:
        by_district[district].append(order_id)
    routes: list[Route] = []
    current = Route(van=1)
    for district in sorted(by_district, key=lambda d: (-len(by_district[d]), d)):
        for order_id in by_district[district]:
            if current.crates + CRATES_PER_ORDER > VAN_CRATES:
                routes.append(current)
                current = Route(van=current.van + 1)
            if district not in current.districts:
                current.districts.append(district)
            current.order_ids.append(order_id)
    if current.order_ids:
        routes.append(current)
    return routes


def slot_orders(conn, slot_id: int) -> list[tuple[str, str]]:
    rows = conn.execute(
        "SELECT orders.id, split_part(addresses.postcode, ' ', 1) AS district FROM orders "
        "JOIN addresses ON addresses.customer_id = orders.customer_id WHERE orders.slot_id = %s",
        (slot_id,),
    )
    return [(str(r["id"]), r["district"]) for r in rows]
