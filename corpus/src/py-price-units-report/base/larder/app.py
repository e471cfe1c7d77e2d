"""The Flask application: one blueprint per area."""

from flask import Flask

from . import db
from .basket.api import bp as basket_bp
from .catalog.admin import bp as catalog_admin_bp
from .catalog.api import bp as catalog_bp
from .checkout.api import bp as checkout_bp
from .ops.health import bp as health_bp
from .settings import load


def create_app() -> Flask:
    settings = load()
    db.init(settings.database_url)
    app = Flask(__name__)
    app.config["LARDER"] = settings
    for bp in (catalog_bp, catalog_admin_bp, basket_bp, checkout_bp, health_bp):
        app.register_blueprint(bp)
    return app
