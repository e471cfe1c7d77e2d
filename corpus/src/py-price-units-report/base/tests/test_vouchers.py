from datetime import datetime, timedelta

import pytest

from larder.promotions.vouchers import Voucher, VoucherError, discount_pence

NOW = datetime(2024, 5, 1, 12, 0)


def test_percent_vouchers_round_down_to_the_penny():
    assert discount_pence(Voucher("TEN", percent_off=10), 1999, NOW) == 199


def test_money_off_never_exceeds_the_goods():
    assert discount_pence(Voucher("FIVER", pence_off=500), 300, NOW) == 300


def test_a_minimum_spend_says_how_much_more_is_needed():
    voucher = Voucher("BIG", pence_off=1000, min_goods_pence=5000)
    with pytest.raises(VoucherError, match=r"add £10\.00 more"):
        discount_pence(voucher, 4000, NOW)


def test_expired_codes_are_refused():
    voucher = Voucher("OLD", percent_off=5, expires_at=NOW - timedelta(days=1))
    with pytest.raises(VoucherError, match="expired"):
        discount_pence(voucher, 1000, NOW)
