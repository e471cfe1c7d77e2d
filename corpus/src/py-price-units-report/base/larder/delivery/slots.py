"""Delivery slots: an hour-long window with a number of vans' worth of capacity."""

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class Slot:
    id: int
    starts_at: datetime
    capacity: int
    booked: int

    @property
    def ends_at(self) -> datetime:
        return self.starts_at + timedelta(hours=1)

    @property
    def free(self) -> int:
        return self.capacity - self.booked


def open_slots(conn, after: datetime, days: int = 7) -> list[Slot]:
    rows = conn.execute(
        "SELECT id, starts_at, capacity, booked FROM delivery_slots "
        "WHERE starts_at > %s AND starts_at < %s AND booked < capacity ORDER BY starts_at",
        (after, after + timedelta(days=days)),
    )
    return [Slot(**r) for r in rows]


def book(conn, slot_id: int) -> bool:
    """Takes one place in the slot; False when it is full (the check and the update are one statement)."""
    updated = conn.execute(
        "UPDATE delivery_slots SET booked = booked + 1 WHERE id = %s AND booked < capacity", (slot_id,)
    ).rowcount
    return updated == 1
