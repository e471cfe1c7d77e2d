package com.acme.freight.rates;

/** The carrier could not give a rate for a lane just now. */
public class RateUnavailableException extends RuntimeException {
    public RateUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    public RateUnavailableException(String message) {
        super(message);
    }
}
