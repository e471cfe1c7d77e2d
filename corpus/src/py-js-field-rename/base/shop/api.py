from flask import Flask, abort, g, jsonify

from .serializers import order_json
from .store import find_order

app = Flask(__name__)


@app.get("/api/orders/<order_id>")
def get_order(order_id: str):
    order = find_order(order_id)
    if order is None or order.customer_id != g.customer_id:
        abort(404)
    return jsonify(order_json(order))
