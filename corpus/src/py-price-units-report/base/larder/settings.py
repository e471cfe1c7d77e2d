"""Settings from the environment, read once at start-up."""

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    database_url: str
    smtp_host: str
    shop_email: str
    free_delivery_over_pence: int
    points_per_pound: int


def load() -> Settings:
    try:
        database_url = os.environ["LARDER_DATABASE_URL"]
    except KeyError:
        raise SystemExit("LARDER_DATABASE_URL is not set: point it at the shop's PostgreSQL database") from None
    return Settings(
        database_url=database_url,
        smtp_host=os.environ.get("LARDER_SMTP_HOST", "localhost"),
        shop_email=os.environ.get("LARDER_SHOP_EMAIL", "hello@larder.example"),
        free_delivery_over_pence=int(os.environ.get("LARDER_FREE_DELIVERY_OVER_PENCE", "6000")),
        points_per_pound=int(os.environ.get("LARDER_POINTS_PER_POUND", "1")),
    )
