package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * A {@code redis-server} process on a free loopback port, without persistence, for the replicas of a comparison
 * when {@code spring.data.redis.*} is not set. Stopped by {@link #close()} and by a shutdown hook.
 */
public final class LocalRedis implements AutoCloseable {

    private static final Log logger = LogFactory.getLog(LocalRedis.class);

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    /** The Debian package that provides the binary. */
    static final String PACKAGE = "redis-server";

    private final Process process;

    private final int port;

    private final ChildProcess child;

    private LocalRedis(Process process, int port) {
        this.process = process;
        this.port = port;
        this.child = new ChildProcess(process, "loom-sample-redis", Duration.ofSeconds(5));
    }

    /**
     * Starts {@code binary} and waits until it answers {@code PING}.
     * @param binary the redis-server binary, a name on the {@code PATH} or a path
     * @param log file that receives its output
     * @throws ProcessStartException naming the package to install when the binary is missing, or why it did not start
     */
    public static LocalRedis start(String binary, Path log, Duration timeout) {
        int port = ChildProcess.freeLoopbackPort((ex) -> new ProcessStartException(
                "No free loopback port for redis-server: " + ex.getMessage(),
                "Set spring.data.redis.host and spring.data.redis.port to a running Redis."));
        List<String> command = List.of(binary, "--port", Integer.toString(port), "--bind", LOOPBACK.getHostAddress(),
                "--save", "", "--appendonly", "no");
        try {
            Files.createDirectories(log.toAbsolutePath().getParent());
        }
        catch (IOException ex) {
            throw new ProcessStartException("Could not create the directory of redis-server's log " + log + ": "
                    + ex.getMessage(), "Choose a writable --loom.sample.report-dir.");
        }
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        }
        catch (IOException ex) {
            throw new ProcessStartException("Mode loom-bulkhead-cluster needs Redis, and spring.data.redis.* is not set, "
                    + "so the comparison starts its own redis-server, but '" + binary + "' could not be started: "
                    + ex.getMessage(), "Install the Debian package '" + PACKAGE + "' (apt-get install " + PACKAGE
                            + "), point --loom.sample.replica.redis-server at the binary, or set "
                            + "spring.data.redis.host and spring.data.redis.port to a running Redis.");
        }
        LocalRedis redis = new LocalRedis(process, port);
        try {
            redis.awaitReady(timeout, log);
        }
        catch (RuntimeException ex) {
            redis.close();
            throw ex;
        }
        logger.info("redis-server started on port " + port + " (pid " + process.pid() + ", log " + log + ")");
        return redis;
    }

    /** Loopback port it listens on. */
    public int port() {
        return this.port;
    }

    /** Host it listens on. */
    public String host() {
        return LOOPBACK.getHostAddress();
    }

    private void awaitReady(Duration timeout, Path log) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!ping()) {
            if (!this.process.isAlive()) {
                throw new ProcessStartException("redis-server exited with code " + this.process.exitValue()
                        + " before it answered on port " + this.port + "; see its log " + log,
                        "Fix the cause shown in the log, or set spring.data.redis.host and spring.data.redis.port "
                                + "to a running Redis.");
            }
            if (System.nanoTime() > deadline) {
                throw new ProcessStartException("redis-server did not answer on port " + this.port + " within "
                        + timeout + "; see its log " + log, "Look at the log for the cause.");
            }
            try {
                Thread.sleep(20);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new ProcessStartException("Interrupted while waiting for redis-server", "Run the comparison again.");
            }
        }
    }

    /** Whether it answers {@code PING} with {@code +PONG} (inline protocol). */
    private boolean ping() {
        try (Socket socket = new Socket(LOOPBACK, this.port)) {
            socket.setSoTimeout(1_000);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            byte[] reply = in.readNBytes(5);
            return "+PONG".equals(new String(reply, StandardCharsets.US_ASCII));
        }
        catch (IOException ex) {
            return false;
        }
    }

    /** Stops redis-server and waits for it to end. */
    @Override
    public void close() {
        this.child.close();
    }

}
