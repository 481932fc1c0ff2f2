package io.github.loombulkhead.examples.http;

import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor;
import io.github.loombulkhead.examples.GatedCallee;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** Runs the RestClient and service code of docs/http-clients.md. */
class HttpClientsSnippetsTest {

    @RegisterExtension
    final GatedCallee callee = new GatedCallee();

    private final BulkheadRegistry registry = BulkheadRegistry.builder()
        .config("callee", BulkheadConfig.custom().maxConcurrentCalls(7).build())
        .build();

    @Test
    void perClientInterceptorTakesAPermitOfItsBulkheadForEachCall() {
        RestClient client = InterceptorSnippets.perClient(this.registry, this.callee.baseUrl());
        this.callee.open();
        assertThat(client.get().uri("/slow").retrieve().body(String.class)).isEqualTo("ok");
        assertThat(this.registry.bulkhead("callee").getPermittedCount()).isEqualTo(1);
        assertThat(this.registry.bulkhead("callee").getActiveCount()).isZero();
    }

    @Test
    void perHostInterceptorCreatesABulkheadPerHostFromTheTemplate() {
        RestClient client = InterceptorSnippets.perHost(this.registry);
        this.callee.open();
        assertThat(client.get().uri(this.callee.baseUrl() + "/slow").retrieve().body(String.class)).isEqualTo("ok");
        String name = "out:" + this.callee.baseUrl();
        assertThat(this.registry.find(name)).hasValueSatisfying((bulkhead) -> {
            assertThat(bulkhead.getLimit()).isEqualTo(20);
            assertThat(bulkhead.getPermittedCount()).isEqualTo(1);
        });
    }

    @Test
    void annotatedServiceMethodsShareTheirBulkhead() throws Exception {
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.registerBean(BulkheadRegistry.class, () -> this.registry);
            context.registerBean(BulkheadAnnotationBeanPostProcessor.class, () -> new BulkheadAnnotationBeanPostProcessor(this.registry));
            context.register(ReportService.class);
            context.refresh();
            ReportService service = context.getBean(ReportService.class);
            assertThat(service.build("a")).isEqualTo(new Report("a"));
            assertThat(service.buildAsync("b").get(30, TimeUnit.SECONDS)).isEqualTo(new Report("b"));
            assertThat(this.registry.bulkhead("reports").getPermittedCount()).isEqualTo(2);
        }
    }
}
