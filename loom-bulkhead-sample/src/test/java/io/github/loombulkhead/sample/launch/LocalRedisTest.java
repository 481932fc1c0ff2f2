package io.github.loombulkhead.sample.launch;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The comparison's own redis-server: started on a free loopback port, stopped on close, or a clear error. */
class LocalRedisTest {

    @TempDir
    Path temp;

    @Test
    void missingBinaryNamesTheDebianPackageToInstall() {
        assertThatExceptionOfType(ProcessStartException.class)
            .isThrownBy(() -> LocalRedis.start(this.temp.resolve("no-such-redis-server").toString(),
                    this.temp.resolve("redis.log"), Duration.ofSeconds(5)))
            .satisfies((ex) -> {
                assertThat(ex.getMessage()).contains("loom-bulkhead-cluster needs Redis")
                    .contains("no-such-redis-server");
                assertThat(ex.getAction()).contains("Install the Debian package 'redis-server'")
                    .contains("--loom.sample.replica.redis-server")
                    .contains("spring.data.redis.host");
                assertThat(ex.getExitCode()).isEqualTo(ProcessStartException.EXIT_CODE);
            });
    }

    @Test
    void answersOnItsPortUntilClosed() throws IOException {
        int port;
        try (LocalRedis redis = LocalRedis.start("redis-server", this.temp.resolve("redis.log"), Duration.ofSeconds(10))) {
            port = redis.port();
            assertThat(command(port, "SET k v")).isEqualTo("+OK");
            assertThat(command(port, "GET k")).isEqualTo("$1");
        }
        assertThat(answers(port)).as("stopped on close").isFalse();
    }

    private static boolean answers(int port) {
        try {
            command(port, "PING");
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    private static String command(int port, String command) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(2_000);
            OutputStream out = socket.getOutputStream();
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\r') {
                line.append((char) c);
            }
            return line.toString();
        }
    }
}
