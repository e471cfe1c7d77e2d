"""`python -m larder.reports.morning` mails the shop team the morning reports."""

from .. import db
from ..notifications.email import send
from ..settings import load
from . import daily_sales, slow_movers, stock_value


def main() -> None:
    settings = load()
    db.init(settings.database_url)
    with db.connection() as conn:
        quiet = slow_movers.slow_movers(conn)
        body = "\n\n".join(
            [
                daily_sales.report(conn),
                stock_value.report(conn),
                f"{len(quiet)} product(s) unsold for {slow_movers.QUIET_DAYS} days:\n"
                + "\n".join(f"  {p.sku} {p.name} ({p.on_hand} on hand)" for p, _ in quiet[:20]),
            ]
        )
    send(settings.smtp_host, settings.shop_email, settings.shop_email, "Larder morning report", body)


if __name__ == "__main__":
    main()
