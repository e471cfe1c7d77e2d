"""One pass of the stock sync: send every event after the cursor, in batches."""

import logging
import time

from .client import StorefrontClient, StorefrontError
from .state import load_cursor, save_cursor

log = logging.getLogger(__name__)

BATCH = 100
ATTEMPTS = 3
BACKOFF_SECONDS = 2.0


def push_with_retry(client: StorefrontClient, payload: list[dict], sleep=time.sleep) -> None:
    """Send one batch, retrying transient failures; the last failure propagates."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            client.push_stock(payload)
            return
        except StorefrontError as exc:
            if attempt == ATTEMPTS:
                raise
            log.warning("push failed (attempt %d of %d): %s", attempt, ATTEMPTS, exc)
            sleep(BACKOFF_SECONDS * attempt)


def run_once(db, client: StorefrontClient) -> int:
    """Send the pending stock events; return how many the storefront accepted."""
    cursor = load_cursor(db)
    sent = 0
    while True:
        events = db.events_after(cursor, limit=BATCH)
        if not events:
            break
        push_with_retry(client, [e.as_payload() for e in events])
        cursor = events[-1].id
        save_cursor(db, cursor)
        sent += len(events)
    log.debug("cursor now at %d", cursor)
    return sent
