package com.example.checkout;

import java.util.List;

/** What a customer is about to buy. Prices are in cents. */
public record Cart(List<Item> items) {
    public record Item(String sku, int quantity, long unitCents) {
        public long totalCents() {
            return quantity * unitCents;
        }
    }

    public long subtotalCents() {
        return items.stream().mapToLong(Item::totalCents).sum();
    }
}
