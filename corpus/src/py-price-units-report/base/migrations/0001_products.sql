CREATE TABLE products (
    sku         TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    category    TEXT NOT NULL,
    unit_price  INTEGER NOT NULL CHECK (unit_price >= 0),  -- pence
    on_hand     INTEGER NOT NULL DEFAULT 0,
    active      BOOLEAN NOT NULL DEFAULT TRUE
);
CREATE INDEX products_category ON products (category) WHERE active;

CREATE TABLE offers (
    sku     TEXT NOT NULL REFERENCES products (sku),
    buy     INTEGER NOT NULL,
    pay     INTEGER NOT NULL,
    ends_at TIMESTAMPTZ NOT NULL
);
