from decimal import Decimal

from larder.catalog.models import Product
from larder.reports.stock_value import by_category, pounds, value_pounds

PRODUCTS = [
    Product("BEANS-400", "Baked beans 400g", "tins", unit_price=Decimal("0.85"), on_hand=40),
    Product("OATS-1KG", "Porridge oats 1kg", "cereal", unit_price=Decimal("1.50"), on_hand=10),
    Product("OLD-TEA", "Discontinued tea", "drinks", unit_price=Decimal("3.00"), on_hand=5, active=False),
]


def test_only_active_products_count():
    assert value_pounds(PRODUCTS) == Decimal("49.00")
    assert by_category(PRODUCTS) == {"tins": Decimal("34.00"), "cereal": Decimal("15.00")}


def test_pounds_have_thousands_separators():
    assert pounds(Decimal("1234.56")) == "£1,234.56"
