package io.github.loombulkhead.benchmarks.cluster;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.benchmarks.LiveChild;

/** A {@code redis-server} without persistence on a free loopback port, stopped on close (only the process started here). */
final class RedisProcess implements AutoCloseable {

    final int port;

    private final Process process;

    private final LiveChild child;

    RedisProcess() throws IOException, InterruptedException {
        try (ServerSocket socket = new ServerSocket(0)) {
            this.port = socket.getLocalPort();
        }
        try {
            this.process = new ProcessBuilder("redis-server", "--port", Integer.toString(this.port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no").redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectErrorStream(true)
                .start();
        }
        catch (IOException ex) {
            throw new IOException("cannot start redis-server: install the Debian package 'redis-server'", ex);
        }
        this.child = LiveChild.register(this.process);
        boolean started = false;
        try {
            awaitPort();
            started = true;
        }
        finally {
            if (!started) {
                this.child.close();
            }
        }
    }

    private void awaitPort() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try (Socket probe = new Socket("127.0.0.1", this.port)) {
                if (probe.isConnected()) {
                    return;
                }
            }
            catch (IOException notYet) {
                if (System.nanoTime() > deadline || !this.process.isAlive()) {
                    throw new IOException("redis-server did not start on port " + this.port, notYet);
                }
                Thread.sleep(10);
            }
        }
    }

    /** Stops redis-server; also when the closing thread is interrupted, which it keeps. */
    @Override
    public void close() {
        this.child.close();
    }
}
