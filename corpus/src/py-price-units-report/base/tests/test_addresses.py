import pytest

from larder.customers.addresses import AddressError, address, clean_postcode


def test_postcodes_are_tidied():
    assert clean_postcode(" sw1a1aa ") == "SW1A 1AA"
    assert clean_postcode("M1 1AE") == "M1 1AE"


def test_places_we_do_not_deliver_to_are_named():
    with pytest.raises(AddressError, match="do not deliver to BT1"):
        clean_postcode("BT1 1AA")


def test_the_district_is_the_outward_code():
    assert address("1 High Street", "Leeds", "ls1 4ap").district == "LS1"
