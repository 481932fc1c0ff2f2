package io.github.loombulkhead.autoconfigure.server;

import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.http.HttpClient;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody;

/**
 * A servlet application on virtual threads with the inbound bulkhead, on Tomcat at a random port. Its handlers hold
 * their requests until the test opens the {@link Gate}; Tomcat runs requests on counted virtual threads.
 */
final class ServerApplication implements AutoCloseable {

    static final Gate gate = new Gate();

    private final ConfigurableApplicationContext context;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private ServerApplication(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /** Starts the application with {@code properties} on top of virtual threads, the server bulkhead and port 0. */
    static ServerApplication start(String... properties) {
        gate.reset();
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Config.class)
            .properties("server.port=0", "spring.threads.virtual.enabled=true", "loom.bulkhead.server.enabled=true",
                    "spring.main.banner-mode=off", "logging.level.root=WARN")
            .properties(properties)
            .run();
        return new ServerApplication(context);
    }

    String url(String path) {
        return "http://127.0.0.1:" + port() + path;
    }

    int port() {
        return ((WebServerApplicationContext) this.context).getWebServer().getPort();
    }

    HttpClient client() {
        return this.client;
    }

    Bulkhead bulkhead(String name) {
        return this.context.getBean(BulkheadRegistry.class).bulkhead(name);
    }

    ServerBulkheadFilter filter() {
        return (ServerBulkheadFilter) this.context.getBean("serverBulkheadFilter", FilterRegistrationBean.class)
            .getFilter();
    }

    ConfigurableApplicationContext context() {
        return this.context;
    }

    @Override
    public void close() {
        gate.open();
        this.client.close();
        this.context.close();
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(HeldController.class)
    static class Config {

        /** Runs Tomcat's request processing on virtual threads it counts, after Spring Boot's own executor is set. */
        @Bean
        WebServerFactoryCustomizer<TomcatServletWebServerFactory> countingTomcatExecutor() {
            return new CountingExecutorCustomizer();
        }

        /** A plain filter, as an application registers one: for {@code REQUEST} dispatches only. */
        @Bean
        @ConditionalOnProperty("test.filters")
        FilterRegistrationBean<Filter> plainFilter() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
                ((HttpServletResponse) response).setHeader("X-Plain-Filter", "ran");
                chain.doFilter(request, response);
            });
            registration.setOrder(0);
            return registration;
        }

        /** A once-per-request filter, which skips {@code ASYNC} dispatches as most of them do. */
        @Bean
        @ConditionalOnProperty("test.filters")
        FilterRegistrationBean<OncePerRequestFilter> oncePerRequestFilter() {
            FilterRegistrationBean<OncePerRequestFilter> registration = new FilterRegistrationBean<>(
                    new OncePerRequestFilter() {

                        @Override
                        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response,
                                FilterChain chain) throws ServletException, IOException {
                            response.setHeader("X-Once-Filter", "ran");
                            chain.doFilter(request, response);
                        }
                    });
            registration.setOrder(0);
            return registration;
        }

        /** A filter bean without an order of its own: it comes after the bulkhead's. */
        @Bean
        @ConditionalOnProperty("test.unordered-filter")
        Filter unorderedFilter() {
            return (request, response, chain) -> {
                ((HttpServletResponse) response).setHeader("X-Unordered-Filter", "ran");
                chain.doFilter(request, response);
            };
        }

        /**
         * A filter bean at the bulkhead's own order: Spring Boot registers it after the bulkhead's registration bean.
         */
        @Bean
        @ConditionalOnProperty("test.unordered-filter")
        SameOrderFilter sameOrderFilter() {
            return new SameOrderFilter();
        }

        /** A filter before the bulkhead's that does not support async mode, as a {@code @WebFilter} by default. */
        @Bean
        @ConditionalOnProperty("test.sync-filter")
        FilterRegistrationBean<Filter> syncFilter() {
            FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>((request, response, chain) -> {
                ((HttpServletResponse) response).setHeader("X-Sync-Filter", "ran");
                chain.doFilter(request, response);
            });
            registration.setOrder(0);
            registration.setAsyncSupported(false);
            return registration;
        }

        /** A rejection handler with a bug, in place of the default one. */
        @Bean
        @ConditionalOnProperty("test.failing-rejection-handler")
        ServerBulkheadRejectionHandler failingRejectionHandler() {
            return (request, response, rejection) -> {
                throw new IllegalStateException("a bug in the rejection handler");
            };
        }
    }

    static final class SameOrderFilter implements Filter, Ordered {

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            chain.doFilter(request, response);
        }

        @Override
        public int getOrder() {
            return LoomBulkheadServerAutoConfiguration.FILTER_ORDER;
        }
    }

    static final class CountingExecutorCustomizer
            implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {

        @Override
        public void customize(TomcatServletWebServerFactory factory) {
            factory.addProtocolHandlerCustomizers((protocol) -> protocol.setExecutor(gate.executor));
        }

        @Override
        public int getOrder() {
            return Ordered.LOWEST_PRECEDENCE;
        }
    }

    /** Holds handlers until opened; counts what runs. */
    static final class Gate {

        private volatile CountDownLatch latch = new CountDownLatch(1);

        final AtomicInteger liveThreads = new AtomicInteger();

        final AtomicInteger maxLiveThreads = new AtomicInteger();

        final LongAdder tasks = new LongAdder();

        final AtomicInteger handling = new AtomicInteger();

        /** Every request processing task on a new virtual thread, counted while it lives. */
        final Executor executor = (task) -> Thread.ofVirtual().name("tomcat-counted-", 0).start(() -> {
            this.tasks.increment();
            this.maxLiveThreads.accumulateAndGet(this.liveThreads.incrementAndGet(), Math::max);
            try {
                task.run();
            }
            finally {
                this.liveThreads.decrementAndGet();
            }
        });

        void reset() {
            this.latch = new CountDownLatch(1);
            this.handling.set(0);
        }

        void open() {
            this.latch.countDown();
        }

        void await() {
            this.handling.incrementAndGet();
            try {
                if (!this.latch.await(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never opened the gate");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while held", ex);
            }
        }
    }

    @RestController
    static class HeldController {

        @GetMapping("/hold")
        String hold() {
            gate.await();
            return "held";
        }

        @GetMapping("/reports/daily")
        String report() {
            gate.await();
            return "report";
        }

        @GetMapping("/fast")
        String fast() {
            return "fast";
        }

        /** A form in a PUT body: only Spring's form content filter makes it a request parameter. */
        @PutMapping("/form")
        String form(@RequestParam String name) {
            return "name=" + name;
        }

        @GetMapping("/callable")
        Callable<String> callable() {
            return () -> {
                gate.await();
                return "callable";
            };
        }

        @GetMapping("/deferred")
        DeferredResult<String> deferred() {
            DeferredResult<String> result = new DeferredResult<>();
            Thread.ofVirtual().start(() -> {
                gate.await();
                result.setResult("deferred");
            });
            return result;
        }

        @GetMapping("/stream")
        StreamingResponseBody stream() {
            return (OutputStream out) -> {
                out.write("first ".getBytes());
                out.flush();
                gate.await();
                out.write("last".getBytes());
            };
        }

        @PostMapping("/hold")
        String holdWithBody(@RequestBody String body) {
            gate.await();
            return "held " + body;
        }

        /** Reads the (empty) body of a GET through the reader, as some filters and handlers do. */
        @GetMapping("/reader")
        String reader(HttpServletRequest request) throws IOException {
            gate.await();
            return "read " + request.getReader().read();
        }

        @GetMapping("/fail")
        String fail() throws IOException {
            throw new IOException("handler failed");
        }

        @GetMapping("/unavailable")
        ResponseEntity<String> unavailable() {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("unavailable");
        }

        @GetMapping("/callable-unavailable")
        Callable<ResponseEntity<String>> callableUnavailable() {
            return () -> ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("unavailable");
        }

        /** A handler that works for {@code ms} milliseconds. */
        @GetMapping("/work")
        String work(@RequestParam long ms) throws InterruptedException {
            Thread.sleep(ms);
            return "worked";
        }

        /** A downstream call that timed out and was not handled. */
        @GetMapping("/timeout")
        String timeout() throws IOException {
            throw new SocketTimeoutException("downstream read timed out");
        }
    }
}
