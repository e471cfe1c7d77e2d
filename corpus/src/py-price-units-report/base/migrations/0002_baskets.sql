CREATE TABLE baskets (
    id          UUID PRIMARY KEY,
    customer_id TEXT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE basket_lines (
    basket_id   UUID NOT NULL REFERENCES baskets (id) ON DELETE CASCADE,
    sku         TEXT NOT NULL REFERENCES products (sku),
    quantity    INTEGER NOT NULL CHECK (quantity > 0),
    unit_pence  INTEGER NOT NULL,
    PRIMARY KEY (basket_id, sku)
);
