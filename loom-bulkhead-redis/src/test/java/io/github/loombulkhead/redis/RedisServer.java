package io.github.loombulkhead.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * A real {@code redis-server} process on a free loopback port, without persistence. Only the process started here is
 * ever stopped. Used as a JUnit extension through {@link RedisServerExtension}, or directly.
 */
public final class RedisServer implements AutoCloseable {

    private final int port;

    private Process process;

    private RedisServer(int port) {
        this.port = port;
    }

    /** Starts {@code redis-server} on a free port; fails with the package to install when it is missing. */
    public static RedisServer start() {
        RedisServer server = new RedisServer(freePort());
        server.restart();
        return server;
    }

    public int port() {
        return this.port;
    }

    /** Starts the server again on the same port (data is gone: nothing is persisted). */
    public synchronized void restart() {
        if (this.process != null && this.process.isAlive()) {
            throw new IllegalStateException("redis-server on port " + this.port + " is running");
        }
        try {
            this.process = new ProcessBuilder("redis-server", "--port", Integer.toString(this.port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot start redis-server (install the Debian package 'redis-server'): "
                    + ex.getMessage(), ex);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ping()) {
            if (!this.process.isAlive() || System.nanoTime() > deadline) {
                this.process.destroyForcibly();
                throw new IllegalStateException("redis-server did not start on port " + this.port);
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(10); // polling for readiness, not an assertion
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting redis-server", ex);
            }
        }
    }

    /** Stops the server (SIGKILL, like a crash) and waits until it is gone. */
    public synchronized void stop() {
        if (this.process != null) {
            this.process.destroyForcibly();
            try {
                this.process.waitFor(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A started Lettuce connection factory with short timeouts, so a stopped server is noticed within 500 ms. */
    public LettuceConnectionFactory connectionFactory() {
        LettuceClientConfiguration client = LettuceClientConfiguration.builder()
            .commandTimeout(Duration.ofMillis(500))
            .clientOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(Duration.ofMillis(500)))
                .build())
            .build();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration("127.0.0.1", this.port), client);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    /** Sends one command in the inline protocol and returns the first reply line. */
    public String command(String command) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", this.port)) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }
    }

    private boolean ping() {
        try {
            return "+PONG".equals(command("PING"));
        }
        catch (IOException ex) {
            return false;
        }
    }

    @Override
    public void close() {
        stop();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
        catch (IOException ex) {
            throw new IllegalStateException("no free port", ex);
        }
    }
}
