"""Delivery charges: by basket value, with a surcharge for remote postcodes."""

from dataclasses import dataclass

FREE_OVER_PENCE = 6000


@dataclass(frozen=True)
class Band:
    up_to_pence: int
    charge_pence: int


BANDS = (Band(2500, 599), Band(4000, 399), Band(FREE_OVER_PENCE, 199))
# Highlands and islands: the courier bills us per parcel on top of the band.
REMOTE_PREFIXES = ("HS", "IV", "KW", "ZE", "PA6", "PA7", "PH4")
REMOTE_SURCHARGE_PENCE = 350


def is_remote(postcode: str) -> bool:
    compact = postcode.replace(" ", "").upper()
    return compact.startswith(REMOTE_PREFIXES)


def delivery_pence(goods_pence: int, postcode: str) -> int:
    if goods_pence >= FREE_OVER_PENCE:
        unit_price = 0
    else:
        unit_price = next(b.charge_pence for b in BANDS if goods_pence < b.up_to_pence)
    # One parcel per order today; the surcharge is per parcel.
    parcels = 1
    surcharge = REMOTE_SURCHARGE_PENCE * parcels if is_remote(postcode) else 0
    return unit_price * parcels + surcharge
