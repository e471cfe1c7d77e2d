package com.acme.freight.quote;

import com.acme.freight.rates.Rate;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** The last rate seen per lane, trusted for a day. */
public class RateCache {
    private static final Duration TRUSTED_FOR = Duration.ofHours(24);
    private final ConcurrentHashMap<String, Rate> last = new ConcurrentHashMap<>();
    private final Clock clock;

    public RateCache(Clock clock) {
        this.clock = clock;
    }

    public void remember(Rate rate) {
        last.put(rate.lane(), rate);
    }

    public Optional<Rate> lastKnown(String lane) {
        return Optional.ofNullable(last.get(lane))
                .filter(r -> r.fetchedAt().plus(TRUSTED_FOR).isAfter(clock.instant()));
    }
}
