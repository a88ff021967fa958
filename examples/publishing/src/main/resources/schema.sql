CREATE TABLE IF NOT EXISTS customer_order (
    id VARCHAR(36) PRIMARY KEY,
    amount_cents BIGINT NOT NULL,
    shipped BOOLEAN NOT NULL
);
