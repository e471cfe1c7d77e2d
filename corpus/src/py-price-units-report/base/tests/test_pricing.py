import pytest

from larder.catalog.models import Offer, Product
from larder.catalog.pricing import line_pence, price_pence

BEANS = Product(sku="BEANS-400", name="Baked beans 400g", category="tins", unit_price=85, on_hand=40)


def test_one_unit_costs_the_unit_price():
    assert price_pence(BEANS) == 85


def test_three_for_two_charges_two_of_every_three():
    offer = Offer("BEANS-400", buy=3, pay=2)
    assert line_pence(BEANS, 3, offer) == 170
    assert line_pence(BEANS, 4, offer) == 255
    assert line_pence(BEANS, 2, offer) == 170


def test_a_negative_quantity_is_refused():
    with pytest.raises(ValueError, match="cannot be negative"):
        line_pence(BEANS, -1)
