package io.github.loombulkhead.sample.server;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.github.loombulkhead.sample.client.BulkheadedSlowApi;
import io.github.loombulkhead.sample.client.SlowApi;
import jakarta.annotation.PreDestroy;

import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The front server of the server comparison (the reference's Server1): each request calls the callee twice and
 * answers {@code ok}.
 */
@RestController
@ConditionalOnWebApplication
@ConditionalOnProperty(name = "loom.sample.role", havingValue = "caller", matchIfMissing = true)
@RequestMapping("/api/front")
class FrontController {

    private final SlowApi api;

    private final BulkheadedSlowApi bulkheadedApi;

    private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();

    FrontController(SlowApi api, BulkheadedSlowApi bulkheadedApi) {
        this.api = api;
        this.bulkheadedApi = bulkheadedApi;
    }

    /** The two calls one after the other. */
    @GetMapping("/sequential")
    String sequential() {
        this.api.slow();
        this.api.slow();
        return "ok";
    }

    /** The two calls at once, each on a virtual thread of its own. */
    @GetMapping("/parallel")
    String parallel() {
        CompletableFuture<String> first = CompletableFuture.supplyAsync(this.api::slow, this.calls);
        CompletableFuture<String> second = CompletableFuture.supplyAsync(this.api::slow, this.calls);
        CompletableFuture.allOf(first, second).join();
        return "ok";
    }

    /** The two calls one after the other, each holding a permit of the {@code callee} bulkhead. */
    @GetMapping("/bulkhead")
    String bulkhead() {
        this.bulkheadedApi.slow();
        this.bulkheadedApi.slow();
        return "ok";
    }

    @PreDestroy
    void close() {
        this.calls.close();
    }
}
