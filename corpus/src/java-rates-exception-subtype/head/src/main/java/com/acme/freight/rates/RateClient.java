package com.acme.freight.rates;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;

/** Asks the carrier's rate API for lane prices. */
public class RateClient {
    private final HttpClient http;
    private final URI base;

    public RateClient(HttpClient http, URI base) {
        this.http = http;
        this.base = base;
    }

    /** The current rate for a lane such as "GB-LON>GB-MAN". */
    public Rate fetch(String lane) {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("/v2/rates?lane=" + lane))
                .timeout(Duration.ofSeconds(3))
                .GET()
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new CarrierApiException("rate API timed out for " + lane, 0, e);
        } catch (IOException e) {
            throw new CarrierApiException("rate API unreachable for " + lane, 0, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RateUnavailableException("interrupted while asking for " + lane, e);
        }
        if (response.statusCode() == 404) {
            throw new RateUnavailableException("the carrier does not serve " + lane);
        }
        if (response.statusCode() != 200) {
            throw new CarrierApiException("rate API answered " + response.statusCode() + " for " + lane,
                    response.statusCode(), null);
        }
        return parse(lane, response.body());
    }

    /** The API answers "base,perKg" in pence. */
    static Rate parse(String lane, String body) {
        String[] parts = body.trim().split(",");
        if (parts.length != 2) {
            throw new IllegalStateException("unexpected rate answer for " + lane + ": " + body);
        }
        return new Rate(lane, Long.parseLong(parts[0]), Long.parseLong(parts[1]), Instant.now());
    }
}
