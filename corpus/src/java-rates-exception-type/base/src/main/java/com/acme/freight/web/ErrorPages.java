package com.acme.freight.web;

import java.util.Map;

/** Texts shown to shoppers when something goes wrong. */
public final class ErrorPages {
    private ErrorPages() {}

    // Shown only when neither the carrier nor the cache has a rate: a rate
    // unavailable here means the shopper really cannot be quoted.
    private static final Map<Integer, String> TEXTS = Map.of(
            404, "We do not deliver pallets to that postcode yet.",
            503, "Delivery prices are unavailable right now. Please try again in a few minutes.");

    public static String forStatus(int status) {
        return TEXTS.getOrDefault(status, "Something went wrong. Please try again.");
    }
}
