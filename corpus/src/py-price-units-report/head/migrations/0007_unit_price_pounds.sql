-- Product prices in pounds with two decimals, like supplier prices (0006).
ALTER TABLE products
    ALTER COLUMN unit_price TYPE NUMERIC(10, 2) USING (unit_price / 100.0)::NUMERIC(10, 2);
