package io.github.loombulkhead.autoconfigure.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * An HTTP/1.1 client on a plain socket, for what an HTTP client library hides: sending a request and closing the
 * connection while it waits, pipelining, reading responses one by one off a kept-alive connection.
 */
final class RawHttpClient implements AutoCloseable {

    private final Socket socket;

    private final InputStream input;

    RawHttpClient(int port) throws IOException {
        this.socket = new Socket();
        this.socket.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        this.socket.setSoTimeout(60_000);
        this.input = this.socket.getInputStream();
    }

    /** Sends {@code GET path} without a body. */
    RawHttpClient get(String path) throws IOException {
        return send("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n");
    }

    /** Sends {@code POST path} with a text body. */
    RawHttpClient post(String path, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        return send("POST " + path + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: "
                + bytes.length + "\r\n\r\n" + body);
    }

    private RawHttpClient send(String request) throws IOException {
        this.socket.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        this.socket.getOutputStream().flush();
        return this;
    }

    /** Closes the sending half of the connection; responses can still be read. */
    void shutdownOutput() throws IOException {
        this.socket.shutdownOutput();
    }

    /** Reads one response, which must have a {@code Content-Length} or be chunked: {@code "<status> <body>"}. */
    String readResponse() throws IOException {
        String head = readLine();
        int status = Integer.parseInt(head.split(" ")[1]);
        int length = -1;
        boolean chunked = false;
        for (String line = readLine(); !line.isEmpty(); line = readLine()) {
            String lower = line.toLowerCase();
            if (lower.startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
            else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (int size = Integer.parseInt(readLine().trim(), 16); size > 0; size = Integer
                .parseInt(readLine().trim(), 16)) {
                body.write(this.input.readNBytes(size));
                readLine();
            }
            readLine();
        }
        else if (length > 0) {
            body.write(this.input.readNBytes(length));
        }
        return status + " " + body.toString(StandardCharsets.UTF_8);
    }

    private String readLine() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = this.input.read(); c != '\n'; c = this.input.read()) {
            if (c == -1) {
                throw new IOException("connection closed after: " + line);
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        this.socket.close();
    }
}
