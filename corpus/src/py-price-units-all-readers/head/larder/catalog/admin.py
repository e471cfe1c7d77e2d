"""The shop team's catalogue screens: change a price, receive stock."""

from decimal import Decimal, InvalidOperation

from flask import Blueprint, jsonify, request

from .. import db
from . import repository

bp = Blueprint("catalog_admin", __name__, url_prefix="/admin/products")


@bp.post("/<sku>/price")
def set_price(sku: str):
    body = request.get_json(silent=True) or {}
    try:
        price = Decimal(str(body.get("unit_price")))
    except InvalidOperation:
        price = None
    if price is None or not price.is_finite() or price < 0 or price != price.quantize(Decimal("0.01")):
        return jsonify({"error": "unit_price must be pounds with at most two decimals, such as \"1.25\""}), 400
    with db.connection() as conn:
        try:
            repository.save_price(conn, sku, price)
        except LookupError as e:
            return jsonify({"error": str(e)}), 404
    return "", 204


@bp.post("/<sku>/receive")
def receive_stock(sku: str):
    body = request.get_json(silent=True) or {}
    quantity = body.get("quantity")
    if not isinstance(quantity, int) or quantity <= 0:
        return jsonify({"error": "quantity must be a positive whole number"}), 400
    with db.connection() as conn:
        repository.adjust_stock(conn, sku, quantity)
    return "", 204
