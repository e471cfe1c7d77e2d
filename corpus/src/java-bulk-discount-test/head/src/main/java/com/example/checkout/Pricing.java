package com.example.checkout;

import java.time.Clock;

/** Turns a cart into the amount charged. */
public final class Pricing {
    /** Items bought this many at a time are five percent cheaper. */
    static final int BULK_QUANTITY = 10;
    static final int BULK_PERCENT = 5;

    private final Clock clock;

    public Pricing(Clock clock) {
        this.clock = clock;
    }

    /** Amount to charge for the cart, in cents, after bulk discounts. */
    public long totalCents(Cart cart, Customer customer) {
        return cart.items().stream().mapToLong(Pricing::lineCents).sum();
    }

    static long lineCents(Cart.Item item) {
        long total = item.totalCents();
        return item.quantity() >= BULK_QUANTITY ? total - total * BULK_PERCENT / 100 : total;
    }
}
