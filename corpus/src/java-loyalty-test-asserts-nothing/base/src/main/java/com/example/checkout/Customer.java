package com.example.checkout;

import java.time.LocalDate;

public record Customer(String id, LocalDate memberSince) {}
