"""Who changed what in the admin screens, kept for a year."""

import json
from datetime import datetime, timezone


def record(conn, actor: str, action: str, subject: str, details: dict | None = None) -> None:
    conn.execute(
        "INSERT INTO admin_audit (at, actor, action, subject, details) VALUES (%s, %s, %s, %s, %s)",
        (datetime.now(timezone.utc), actor, action, subject, json.dumps(details or {}, sort_keys=True)),
    )


def recent(conn, subject: str, limit: int = 20) -> list[dict]:
    rows = conn.execute(
        "SELECT at, actor, action, details FROM admin_audit WHERE subject = %s ORDER BY at DESC LIMIT %s",
        (subject, limit),
    )
    return [{**r, "details": json.loads(r["details"])} for r in rows]


def purge(conn, now: datetime | None = None) -> int:
    now = now or datetime.now(timezone.utc)
    return conn.execute("DELETE FROM admin_audit WHERE at < %s - interval '365 days'", (now,)).rowcount
