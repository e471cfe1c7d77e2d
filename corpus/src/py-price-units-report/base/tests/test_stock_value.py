from larder.catalog.models import Product
from larder.reports.stock_value import by_category, pounds, value_pence

PRODUCTS = [
    Product("BEANS-400", "Baked beans 400g", "tins", unit_price=85, on_hand=40),
    Product("OATS-1KG", "Porridge oats 1kg", "cereal", unit_price=150, on_hand=10),
    Product("OLD-TEA", "Discontinued tea", "drinks", unit_price=300, on_hand=5, active=False),
]


def test_only_active_products_count():
    assert value_pence(PRODUCTS) == 85 * 40 + 150 * 10
    assert by_category(PRODUCTS) == {"tins": 3400, "cereal": 1500}


def test_pounds_have_thousands_separators():
    assert pounds(123456) == "£1,234.56"
