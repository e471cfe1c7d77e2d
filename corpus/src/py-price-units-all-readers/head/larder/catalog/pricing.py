"""What a quantity of a product costs, in pence. Baskets and orders add these up."""

from decimal import ROUND_HALF_UP

from .models import Offer, Product


def price_pence(product: Product) -> int:
    """The price of one unit in pence, as baskets record it."""
    return int((product.unit_price * 100).to_integral_value(rounding=ROUND_HALF_UP))


def line_pence(product: Product, quantity: int, offer: Offer | None = None) -> int:
    """The price of `quantity` units, with a multi-buy offer applied."""
    if quantity < 0:
        raise ValueError(f"quantity of {product.sku} cannot be negative ({quantity})")
    unit = price_pence(product)
    if offer is None or quantity < offer.buy:
        return unit * quantity
    bundles, rest = divmod(quantity, offer.buy)
    return (bundles * offer.pay + rest) * unit
