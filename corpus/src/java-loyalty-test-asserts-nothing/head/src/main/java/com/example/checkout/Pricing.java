package com.example.checkout;

import java.time.Clock;
import java.time.LocalDate;
import java.time.Period;

/** Turns a cart into the amount charged. */
public final class Pricing {
    /** Loyalty discount: one percent per full year of membership, at most this. */
    static final int MAX_LOYALTY_PERCENT = 10;

    private final Clock clock;

    public Pricing(Clock clock) {
        this.clock = clock;
    }

    /** Amount to charge for the cart, in cents, after the loyalty discount. */
    public long totalCents(Cart cart, Customer customer) {
        long subtotal = cart.subtotalCents();
        return subtotal - subtotal * loyaltyPercent(customer) / 100;
    }

    int loyaltyPercent(Customer customer) {
        int years = Period.between(customer.memberSince(), LocalDate.now(clock)).getYears();
        return Math.min(Math.max(years, 0), MAX_LOYALTY_PERCENT);
    }
}
