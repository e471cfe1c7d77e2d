"""One pass of the stock sync: send every event after the cursor, in batches."""

import logging

from .client import StorefrontClient, StorefrontError
from .state import load_cursor, save_cursor

log = logging.getLogger(__name__)

BATCH = 100


def run_once(db, client: StorefrontClient) -> int:
    """Send the pending stock events; return how many the storefront accepted.

    A batch the storefront rejects ends the pass instead of crashing the cron
    job; the next pass tries it again.
    """
    cursor = load_cursor(db)
    sent = 0
    while True:
        events = db.events_after(cursor, limit=BATCH)
        if not events:
            break
        try:
            client.push_stock([e.as_payload() for e in events])
        except StorefrontError as exc:
            log.warning("storefront rejected a batch: %s", exc)
            save_cursor(db, 0)
            return sent
        cursor = events[-1].id
        save_cursor(db, cursor)
        sent += len(events)
    log.debug("cursor now at %d", cursor)
    return sent
