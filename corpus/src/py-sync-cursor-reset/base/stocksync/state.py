"""Where the last acknowledged stock event is remembered."""

CURSOR_KEY = "stocksync.cursor"


def load_cursor(db) -> int:
    """Id of the last event the storefront accepted (0 before the first pass)."""
    value = db.get_setting(CURSOR_KEY)
    return int(value) if value is not None else 0


def save_cursor(db, event_id: int) -> None:
    db.set_setting(CURSOR_KEY, str(event_id))
