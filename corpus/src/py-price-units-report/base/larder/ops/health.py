"""/healthz for the load balancer: the app is up and the database answers."""

import time

from flask import Blueprint, jsonify

from .. import db

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    started = time.monotonic()
    try:
        with db.connection() as conn:
            conn.execute("SELECT 1")
    except Exception as e:  # any failure means "not healthy"; say which
        return jsonify({"status": "down", "error": type(e).__name__}), 503
    return jsonify({"status": "ok", "db_ms": round((time.monotonic() - started) * 1000, 1)})
