package io.github.loombulkhead.examples.boot.http;

/** What the clients and services of docs/http-clients.md return. */
public record Report(String id) {
}
