package io.github.loombulkhead.autoconfigure.metrics;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code prometheus} process on a free loopback port that scrapes one target every second, with its data in a
 * directory of its own. Only the process started here is ever stopped.
 */
final class PrometheusServer implements AutoCloseable {

    private final HttpClient http = HttpClient.newHttpClient();

    private final int port;

    private final Process process;

    private PrometheusServer(int port, Process process) {
        this.port = port;
        this.process = process;
    }

    /**
     * Starts {@code prometheus} scraping {@code metricsPath} at {@code 127.0.0.1:targetPort} as job {@code app} and
     * evaluating {@code rules} every second; fails naming the package to install when it is missing.
     */
    static PrometheusServer start(Path directory, int targetPort, String metricsPath, Path rules) throws IOException {
        Path config = directory.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  evaluation_interval: 1s
                rule_files: ['%s']
                scrape_configs:
                  - job_name: app
                    metrics_path: %s
                    static_configs:
                      - targets: ['127.0.0.1:%d']
                """.formatted(rules.toAbsolutePath(), metricsPath, targetPort));
        int port = freePort();
        Process process;
        try {
            process = new ProcessBuilder("prometheus", "--config.file=" + config,
                    "--storage.tsdb.path=" + directory.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(directory.resolve("prometheus.log").toFile())
                .start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot start prometheus (install the Debian package 'prometheus'): "
                    + ex.getMessage(), ex);
        }
        PrometheusServer server = new PrometheusServer(port, process);
        try {
            server.awaitReady(directory);
        }
        catch (RuntimeException | Error ex) {
            server.close();
            throw ex;
        }
        return server;
    }

    /** The body of {@code GET /api/v1/query} for {@code promql}, evaluated now. */
    String query(String promql) {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    /** The body of {@code GET /api/v1/rules}: every rule with its health and last error. */
    String rules() {
        return get("/api/v1/rules");
    }

    /** The body of {@code GET /api/v1/label/<label>/values} for the series {@code match} selects. */
    String labelValues(String label, String match) {
        return get("/api/v1/label/" + label + "/values?match[]=" + URLEncoder.encode(match, StandardCharsets.UTF_8));
    }

    private void awaitReady(Path directory) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            if (!this.process.isAlive()) {
                throw new IllegalStateException("prometheus exited with " + this.process.exitValue() + "; see "
                        + directory.resolve("prometheus.log"));
            }
            try {
                HttpResponse<Void> ready = this.http.send(request("/-/ready"), HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200) {
                    return;
                }
            }
            catch (IOException ex) {
                // not listening yet
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting prometheus", ex);
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("prometheus was not ready within 30 s on port " + this.port);
            }
            try {
                Thread.sleep(50); // polling for readiness, not an assertion
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting prometheus", ex);
            }
        }
    }

    private String get(String pathAndQuery) {
        try {
            HttpResponse<String> response = this.http.send(request(pathAndQuery), HttpResponse.BodyHandlers.ofString());
            return response.body();
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while querying prometheus", ex);
        }
    }

    private HttpRequest request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + pathAndQuery))
            .timeout(Duration.ofSeconds(10))
            .build();
    }

    @Override
    public void close() {
        this.process.destroy();
        try {
            if (!this.process.waitFor(10, TimeUnit.SECONDS)) {
                this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (InterruptedException ex) {
            this.process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
