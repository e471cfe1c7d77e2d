CREATE TABLE orders (
    id            UUID PRIMARY KEY,
    customer_id   TEXT NOT NULL,
    placed_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
    goods_pence   INTEGER NOT NULL,
    delivery_pence INTEGER NOT NULL,
    slot_id       INTEGER
);
CREATE TABLE order_lines (
    order_id    UUID NOT NULL REFERENCES orders (id),
    sku         TEXT NOT NULL,
    quantity    INTEGER NOT NULL,
    unit_pence  INTEGER NOT NULL
);

CREATE TABLE refunds (
    order_id    UUID NOT NULL REFERENCES orders (id),
    sku         TEXT NOT NULL,
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    pence       INTEGER NOT NULL,
    refunded_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
