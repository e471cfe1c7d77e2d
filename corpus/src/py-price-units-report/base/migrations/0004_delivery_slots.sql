CREATE TABLE delivery_slots (
    id        SERIAL PRIMARY KEY,
    starts_at TIMESTAMPTZ NOT NULL,
    capacity  INTEGER NOT NULL,
    booked    INTEGER NOT NULL DEFAULT 0 CHECK (booked <= capacity)
);
