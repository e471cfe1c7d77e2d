import logging
import os

from .client import StorefrontClient
from .db import connect
from .sync import run_once

logging.basicConfig(level=logging.INFO)

if __name__ == "__main__":
    db = connect(os.environ["STOCK_DB_URL"])
    client = StorefrontClient(os.environ["STOREFRONT_URL"], os.environ["STOREFRONT_TOKEN"])
    sent = run_once(db, client)
    logging.getLogger("stocksync").info("sent %d stock events", sent)
