package com.acme.freight.rates;

import java.time.Instant;

/** The carrier's price for one lane: a fixed part plus a part per kilogram. */
public record Rate(String lane, long basePence, long perKgPence, Instant fetchedAt) {
    public long priceFor(double kg) {
        return basePence + Math.round(perKgPence * kg);
    }
}
