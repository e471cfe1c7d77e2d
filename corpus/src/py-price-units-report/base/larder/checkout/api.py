"""The checkout API."""

from uuid import UUID

from flask import Blueprint, abort, jsonify, request

from .. import db
from ..basket import service as baskets
from . import payments
from .service import CheckoutError, checkout

bp = Blueprint("checkout", __name__, url_prefix="/api/checkout")


@bp.post("/<uuid:basket_id>")
def pay(basket_id: UUID):
    body = request.get_json(silent=True) or {}
    missing = [k for k in ("card_token", "slot_id", "postcode") if k not in body]
    if missing:
        return jsonify({"error": f"missing {', '.join(missing)}"}), 400
    customer = request.headers.get("X-Customer-Id") or abort(401)
    with db.connection() as conn:
        basket = baskets.load(conn, basket_id) or abort(404)
        try:
            order = checkout(conn, basket, customer, body["card_token"], body["slot_id"], body["postcode"])
        except CheckoutError as e:
            return jsonify({"error": str(e)}), 409
        except payments.PaymentDeclined as e:
            return jsonify({"error": f"payment declined: {e}"}), 402
    return jsonify({"order_id": str(order.id), "total_pence": order.total_pence}), 201
