package com.example.checkout;

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
    private final Customer customer = new Customer("c-1", LocalDate.parse("2024-05-30"));

    @Test
    void chargesTheSubtotal() {
        Cart cart = new Cart(List.of(new Cart.Item("mug", 2, 1_250), new Cart.Item("tea", 1, 499)));
        assertEquals(2_999, pricing.totalCents(cart, customer));
    }

    @Test
    void tenOfAnItemAreFivePercentCheaper() {
        Cart cart = new Cart(List.of(new Cart.Item("mug", 10, 1_250), new Cart.Item("tea", 1, 499)));
        assertEquals(12_500 - 625 + 499, pricing.totalCents(cart, customer));
    }

    @Test
    void nineOfAnItemAreFullPrice() {
        Cart cart = new Cart(List.of(new Cart.Item("mug", 9, 1_250)));
        assertEquals(11_250, pricing.totalCents(cart, customer));
    }
}
