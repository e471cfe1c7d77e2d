from dataclasses import dataclass

import psycopg


@dataclass
class StockEvent:
    id: int
    sku: str
    on_hand: int

    def as_payload(self) -> dict:
        return {"sku": self.sku, "on_hand": self.on_hand, "event": self.id}


class Database:
    def __init__(self, conn):
        self.conn = conn

    def events_after(self, event_id: int, limit: int) -> list[StockEvent]:
        rows = self.conn.execute(
            "SELECT id, sku, on_hand FROM stock_events WHERE id > %s ORDER BY id LIMIT %s",
            (event_id, limit),
        ).fetchall()
        return [StockEvent(*row) for row in rows]

    def get_setting(self, key: str):
        row = self.conn.execute("SELECT value FROM settings WHERE key = %s", (key,)).fetchone()
        return row[0] if row else None

    def set_setting(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO settings (key, value) VALUES (%s, %s) "
            "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
            (key, value),
        )
        self.conn.commit()


def connect(url: str) -> Database:
    return Database(psycopg.connect(url))
