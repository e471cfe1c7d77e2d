"""The basket API."""

from uuid import UUID

from flask import Blueprint, abort, jsonify, request

from .. import db
from . import service

bp = Blueprint("basket", __name__, url_prefix="/api/baskets")


def basket_json(basket) -> dict:
    return {
        "id": str(basket.id),
        "lines": [{"sku": l.sku, "quantity": l.quantity, "pence": l.pence} for l in basket.lines],
        "goods_pence": basket.goods_pence,
    }


@bp.post("")
def create():
    with db.connection() as conn:
        basket = service.new_basket(conn, request.headers.get("X-Customer-Id"))
    return jsonify(basket_json(basket)), 201


@bp.post("/<uuid:basket_id>/lines")
def add_line(basket_id: UUID):
    body = request.get_json(silent=True) or {}
    sku, quantity = body.get("sku"), body.get("quantity", 1)
    if not isinstance(sku, str) or not isinstance(quantity, int) or quantity <= 0:
        return jsonify({"error": "send a JSON body with sku (text) and quantity (a positive whole number)"}), 400
    with db.connection() as conn:
        basket = service.load(conn, basket_id) or abort(404)
        try:
            service.add(conn, basket, sku, quantity)
        except service.BasketError as e:
            return jsonify({"error": str(e)}), 409
    return jsonify(basket_json(basket))
