"""Texts of the mails the shop sends. Each takes already-formatted values."""

ORDER_CONFIRMED = """Thank you for your order {order_id}.

We will deliver it on {slot}. You paid {total} and earned {points} points.
"""

# Sent to a supplier with a purchase order attached. Suppliers asked for the unit
# price on each line in pounds with two decimals, as on their own invoices.
PURCHASE_ORDER = """Purchase order {po_id} from Larder

{lines}

Unit price and quantity as agreed; please confirm the delivery date.
"""

SLOT_REMINDER = "Your Larder delivery arrives tomorrow between {start} and {end}."


def purchase_order_line(sku: str, quantity: int, unit_price: str) -> str:
    return f"{sku:<12} {quantity:>5} x {unit_price:>8}"
