package com.acme.freight.rates;

/**
 * The carrier's rate API failed: it answered with an error status, timed out or
 * could not be reached. Carries the HTTP status when there was one (0 otherwise),
 * so dashboards can tell throttling (429) from outages.
 */
public class CarrierApiException extends RuntimeException {
    private final int status;

    public CarrierApiException(String message, int status, Throwable cause) {
        super(message, cause);
        this.status = status;
    }

    public int status() {
        return status;
    }

    public boolean throttled() {
        return status == 429;
    }
}
