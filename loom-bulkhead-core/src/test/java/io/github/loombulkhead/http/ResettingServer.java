package io.github.loombulkhead.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * A raw loopback socket server that answers every request with a 200 announcing 100,000 bytes,
 * sends 1,000 of them, and then resets the connection (TCP RST): a callee dying mid-body. Tests get one
 * from {@link LoopbackServerExtension}.
 */
public final class ResettingServer implements AutoCloseable {

    private final ServerSocket socket;

    private final Thread acceptor;

    private ResettingServer() throws IOException {
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = Thread.ofVirtual().name("resetting-server").start(this::acceptLoop);
    }

    /** Started and closed by {@link LoopbackServerExtension}. */
    static ResettingServer start() throws IOException {
        return new ResettingServer();
    }

    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + this.socket.getLocalPort() + path);
    }

    private void acceptLoop() {
        while (!this.socket.isClosed()) {
            try {
                Socket client = this.socket.accept();
                Thread.ofVirtual().start(() -> serve(client));
            }
            catch (IOException ex) {
                return;
            }
        }
    }

    private static void serve(Socket client) {
        try (client) {
            readRequestHead(client.getInputStream());
            OutputStream out = client.getOutputStream();
            out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[1000]);
            out.flush();
            // Lets time pass on purpose: the client reads the first bytes before the connection is reset.
            Thread.sleep(100);
            client.setSoLinger(true, 0);
        }
        catch (IOException ex) {
            // the client went away first
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    private static void readRequestHead(InputStream in) throws IOException {
        int matched = 0;
        byte[] end = { '\r', '\n', '\r', '\n' };
        int b;
        while (matched < 4 && (b = in.read()) != -1) {
            matched = (b == end[matched]) ? matched + 1 : ((b == '\r') ? 1 : 0);
        }
    }

    @Override
    public void close() throws IOException {
        this.socket.close();
        this.acceptor.interrupt();
    }
}
