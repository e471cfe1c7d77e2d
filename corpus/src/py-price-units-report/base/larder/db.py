"""The connection pool, and `python -m larder.db migrate` to apply migrations/."""

import sys
from contextlib import contextmanager
from pathlib import Path

from psycopg.rows import dict_row
from psycopg_pool import ConnectionPool

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"

_pool: ConnectionPool | None = None


def init(database_url: str) -> None:
    global _pool
    _pool = ConnectionPool(database_url, kwargs={"row_factory": dict_row}, open=True)


@contextmanager
def connection():
    if _pool is None:
        raise RuntimeError("larder.db.init() was not called before the first query")
    with _pool.connection() as conn:
        yield conn


def migrate(conn) -> list[str]:
    """Apply every migration not applied yet, in file name order."""
    conn.execute("CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY)")
    done = {row["name"] for row in conn.execute("SELECT name FROM schema_migrations")}
    applied = []
    for path in sorted(MIGRATIONS.glob("*.sql")):
        if path.name in done:
            continue
        with conn.transaction():
            conn.execute(path.read_text())
            conn.execute("INSERT INTO schema_migrations (name) VALUES (%s)", (path.name,))
        applied.append(path.name)
    return applied


if __name__ == "__main__":
    from .settings import load

    if sys.argv[1:] != ["migrate"]:
        raise SystemExit("usage: python -m larder.db migrate")
    init(load().database_url)
    with connection() as conn:
        for name in migrate(conn):
            print(f"applied {name}")
