package com.acme.freight.billing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads carrier invoices the finance team drops into a folder. Not part of quoting. */
public class InvoiceClient {
    private final Path inbox;

    public InvoiceClient(Path inbox) {
        this.inbox = inbox;
    }

    /** The text of one invoice, by its number. */
    public String fetch(String invoiceNumber) {
        Path file = inbox.resolve(invoiceNumber + ".csv");
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read invoice " + file, e);
        }
    }
}
