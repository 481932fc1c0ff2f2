/**
 * Bulkheads for outbound HTTP: a {@code RestClient}/{@code RestTemplate} interceptor that bounds
 * exchanges per client or per host, and an Apache HttpClient 5 request factory whose connection
 * pool is sized from the bulkhead limits.
 */
package io.github.loombulkhead.http;
