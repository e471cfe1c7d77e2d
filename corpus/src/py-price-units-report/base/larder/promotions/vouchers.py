"""Voucher codes: money or a percentage off the goods, once per customer."""

from dataclasses import dataclass
from datetime import datetime


class VoucherError(Exception):
    """Why a code cannot be used, in words a shopper understands."""


@dataclass(frozen=True)
class Voucher:
    code: str
    percent_off: int = 0
    pence_off: int = 0
    min_goods_pence: int = 0
    expires_at: datetime | None = None

    def __post_init__(self) -> None:
        if (self.percent_off > 0) == (self.pence_off > 0):
            raise ValueError(f"voucher {self.code}: set exactly one of percent_off and pence_off")
        if not 0 <= self.percent_off <= 100:
            raise ValueError(f"voucher {self.code}: percent_off must be 0 to 100")


def discount_pence(voucher: Voucher, goods_pence: int, now: datetime) -> int:
    if voucher.expires_at is not None and now >= voucher.expires_at:
        raise VoucherError(f"the code {voucher.code} has expired")
    if goods_pence < voucher.min_goods_pence:
        short = voucher.min_goods_pence - goods_pence
        raise VoucherError(f"add £{short / 100:.2f} more to use {voucher.code}")
    if voucher.percent_off:
        return goods_pence * voucher.percent_off // 100
    return min(voucher.pence_off, goods_pence)


def find(conn, code: str) -> Voucher | None:
    row = conn.execute(
        "SELECT code, percent_off, pence_off, min_goods_pence, expires_at FROM vouchers WHERE code = %s",
        (code.strip().upper(),),
    ).fetchone()
    return Voucher(**row) if row else None


def redeem(conn, voucher: Voucher, customer_id: str) -> None:
    inserted = conn.execute(
        "INSERT INTO voucher_uses (code, customer_id) VALUES (%s, %s) ON CONFLICT DO NOTHING",
        (voucher.code, customer_id),
    ).rowcount
    if inserted == 0:
        raise VoucherError(f"you have already used {voucher.code}")
