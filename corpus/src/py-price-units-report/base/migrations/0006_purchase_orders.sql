-- Supplier invoices quote pounds with two decimals, so these columns do too.
CREATE TABLE purchase_orders (
    id          SERIAL PRIMARY KEY,
    supplier    TEXT NOT NULL,
    raised_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE purchase_order_lines (
    po_id       INTEGER NOT NULL REFERENCES purchase_orders (id),
    sku         TEXT NOT NULL,
    quantity    INTEGER NOT NULL,
    unit_price  NUMERIC(10, 2) NOT NULL
);
