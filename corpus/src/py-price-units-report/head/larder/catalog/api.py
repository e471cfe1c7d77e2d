"""The public catalogue API the shop front reads."""

from flask import Blueprint, abort, jsonify, request

from .. import db
from . import repository, search
from .models import Product

bp = Blueprint("catalog", __name__, url_prefix="/api/products")


def format_price(product: Product) -> str:
    return f"£{product.unit_price:.2f}"


def product_json(product: Product) -> dict:
    return {
        "sku": product.sku,
        "name": product.name,
        "category": product.category,
        "price": format_price(product),
        "in_stock": product.in_stock,
    }


@bp.get("")
def list_products():
    category = request.args.get("category")
    with db.connection() as conn:
        products = repository.active_products(conn, category)
    return jsonify([product_json(p) for p in products])


@bp.get("/search")
def search_products():
    text = request.args.get("q", "").strip()
    if len(text) < 2:
        return jsonify({"error": "search for at least two characters"}), 400
    with db.connection() as conn:
        products = search.by_name(conn, text)
    return jsonify([product_json(p) for p in products])


@bp.get("/<sku>")
def get_product(sku: str):
    with db.connection() as conn:
        product = repository.get(conn, sku)
    if product is None or not product.active:
        abort(404)
    return jsonify(product_json(product))
