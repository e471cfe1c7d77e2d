CREATE TABLE loyalty_accounts (
    customer_id TEXT PRIMARY KEY,
    points      INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE customers (
    id               TEXT PRIMARY KEY,
    email            TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL,
    password_hash    TEXT NOT NULL,
    marketing_opt_in BOOLEAN NOT NULL DEFAULT FALSE,
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE TABLE addresses (
    customer_id TEXT NOT NULL REFERENCES customers (id),
    line1       TEXT NOT NULL,
    line2       TEXT NOT NULL DEFAULT '',
    town        TEXT NOT NULL,
    postcode    TEXT NOT NULL
);
CREATE TABLE vouchers (
    code            TEXT PRIMARY KEY,
    percent_off     INTEGER NOT NULL DEFAULT 0,
    pence_off       INTEGER NOT NULL DEFAULT 0,
    min_goods_pence INTEGER NOT NULL DEFAULT 0,
    expires_at      TIMESTAMPTZ
);
CREATE TABLE voucher_uses (
    code        TEXT NOT NULL REFERENCES vouchers (code),
    customer_id TEXT NOT NULL,
    PRIMARY KEY (code, customer_id)
);
CREATE TABLE admin_audit (
    at      TIMESTAMPTZ NOT NULL,
    actor   TEXT NOT NULL,
    action  TEXT NOT NULL,
    subject TEXT NOT NULL,
    details JSONB NOT NULL
);
