package io.github.loombulkhead.examples.http.withoutstarter;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.examples.GatedCallee;
import io.github.loombulkhead.examples.http.CalleeClient;
import io.github.loombulkhead.examples.http.Report;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Runs the "without the starter" configuration of docs/http-clients.md in a plain Spring context (no Spring
 * Boot auto-configuration): the annotated client reaches the callee through the group's base URL, and the
 * sized pool lets both of its bulkheads' limits through at once instead of HttpClient 5's default 5 connections
 * per host.
 */
class ClientsConfigTest {

    @RegisterExtension
    final GatedCallee callee = new GatedCallee();

    @Test
    @SuppressWarnings("try") // the gate is closed for its side effect: it opens the callee first
    void annotatedClientIsBoundedByItsBulkheadsAndNotByThePool() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
                AutoCloseable gate = this.callee::open) {
            context.getEnvironment().getPropertySources()
                .addFirst(new MapPropertySource("test", Map.of("callee.base-url", this.callee.baseUrl())));
            context.register(ClientsConfig.class);
            context.refresh();
            CalleeClient client = context.getBean(CalleeClient.class);
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            Bulkhead callee = registry.bulkhead("callee");
            Bulkhead reports = registry.bulkhead("callee-reports");
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                calls.add(callers.submit(client::slow));
            }
            List<Future<Report>> reportCalls = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                String id = "r" + i;
                reportCalls.add(callers.submit(() -> client.report(id)));
            }
            // Both bulkheads' limits reach the callee at once: the pool holds the sum of them.
            await().until(() -> this.callee.inFlight() == 120 && callee.getWaitingCount() == 50
                    && reports.getWaitingCount() == 10);
            this.callee.open();
            for (Future<String> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
            }
            for (int i = 0; i < reportCalls.size(); i++) {
                assertThat(reportCalls.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(new Report("r" + i));
            }
            assertThat(this.callee.maxInFlight()).isEqualTo(120);
            assertThat(callee.getPermittedCount()).isEqualTo(150);
            assertThat(reports.getPermittedCount()).isEqualTo(30);
        }
    }
}
