package io.github.loombulkhead.examples.http;

/** What the clients and services of docs/http-clients.md return. */
public record Report(String id) {
}
