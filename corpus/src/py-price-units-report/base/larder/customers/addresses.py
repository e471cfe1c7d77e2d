"""Delivery addresses. We deliver to mainland UK postcodes and the islands."""

import re
from dataclasses import dataclass

# Outward code, a space (optional when typed), inward code: "SW1A 1AA", "m1 1ae".
POSTCODE = re.compile(r"^([A-Z]{1,2}[0-9][A-Z0-9]?) ?([0-9][A-Z]{2})$")
NOT_DELIVERED = ("BT", "GY", "JE", "IM")  # Northern Ireland, Channel Islands, Isle of Man


class AddressError(ValueError):
    pass


@dataclass(frozen=True)
class Address:
    line1: str
    line2: str
    town: str
    postcode: str

    @property
    def district(self) -> str:
        """The outward code, which the van routes are planned by."""
        return self.postcode.split(" ")[0]


def clean_postcode(text: str) -> str:
    compact = text.strip().upper().replace(" ", "")
    match = POSTCODE.match(compact[:-3] + " " + compact[-3:] if len(compact) > 3 else compact)
    if not match:
        raise AddressError(f"{text!r} is not a UK postcode")
    outward, inward = match.groups()
    if outward.startswith(NOT_DELIVERED):
        raise AddressError(f"we do not deliver to {outward} yet")
    return f"{outward} {inward}"


def address(line1: str, town: str, postcode: str, line2: str = "") -> Address:
    if not line1.strip() or not town.strip():
        raise AddressError("an address needs a first line and a town")
    return Address(line1.strip(), line2.strip(), town.strip(), clean_postcode(postcode))
