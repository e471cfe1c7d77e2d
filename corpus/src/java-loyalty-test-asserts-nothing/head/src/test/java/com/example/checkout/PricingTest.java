package com.example.checkout;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class PricingTest {
    private final Clock clock = Clock.fixed(Instant.parse("2024-06-01T10:00:00Z"), ZoneOffset.UTC);
    private final Pricing pricing = new Pricing(clock);

    @Test
    void chargesTheSubtotal() {
        Cart cart = new Cart(List.of(new Cart.Item("mug", 2, 1_250), new Cart.Item("tea", 1, 499)));
        Customer newcomer = new Customer("c-1", LocalDate.parse("2024-05-30"));
        assertEquals(2_999, pricing.totalCents(cart, newcomer));
    }

    @Test
    void loyaltyDiscountIsCappedAtTenPercent() {
        Cart cart = new Cart(List.of(new Cart.Item("kettle", 1, 10_000)));
        Customer veteran = new Customer("c-2", LocalDate.parse("2009-01-15"));
        assertDoesNotThrow(() -> pricing.totalCents(cart, veteran));
    }
}
