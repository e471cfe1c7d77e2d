package com.acme.freight.quote;

import com.acme.freight.rates.Rate;
import com.acme.freight.rates.RateClient;
import com.acme.freight.rates.RateUnavailableException;
import java.util.logging.Logger;

/** Prices a shipment at checkout. */
public class QuoteService {
    private static final Logger LOG = Logger.getLogger(QuoteService.class.getName());
    private final RateClient rates;
    private final RateCache cache;

    public QuoteService(RateClient rates, RateCache cache) {
        this.rates = rates;
        this.cache = cache;
    }

    public record Quote(String lane, long pricePence, boolean fromCache) {}

    public Quote quote(String lane, double kg) {
        try {
            Rate rate = rates.fetch(lane);
            cache.remember(rate);
            return new Quote(lane, rate.priceFor(kg), false);
        } catch (RateUnavailableException e) {
            // The checkout must not fail because the carrier is slow: use yesterday's price.
            Rate rate = cache.lastKnown(lane).orElseThrow(() -> e);
            LOG.warning("quoting " + lane + " from cache: " + e.getMessage());
            return new Quote(lane, rate.priceFor(kg), true);
        }
    }
}
