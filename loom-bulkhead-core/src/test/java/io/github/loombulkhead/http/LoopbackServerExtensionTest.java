package io.github.loombulkhead.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The fixture gives one server per name and scope, and stops each when its scope ends. */
@ExtendWith(LoopbackServerExtension.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LoopbackServerExtensionTest {

    private static final List<LoopbackServer> stoppedAfterTheirTest = new CopyOnWriteArrayList<>();

    private static LoopbackServer classServer;

    private LoopbackServer fromBeforeEach;

    @BeforeAll
    static void startForTheClass(LoopbackServer shared) {
        classServer = shared;
    }

    @BeforeEach
    void setUp(LoopbackServer server) {
        this.fromBeforeEach = server;
    }

    @Test
    @Order(1)
    void aParameterOfTheSameNameIsTheSameServer(LoopbackServer server) {
        assertThat(server).isSameAs(this.fromBeforeEach);
        stoppedAfterTheirTest.add(server);
    }

    @Test
    @Order(2)
    void aParameterOfAnotherNameIsAnotherServer(LoopbackServer server, LoopbackServer other) {
        assertThat(other).isNotSameAs(server);
        assertThat(other.port()).isNotEqualTo(server.port());
        stoppedAfterTheirTest.add(other);
    }

    @Test
    @Order(3)
    void eachTestGetsItsOwnServer(LoopbackServer server) {
        assertThat(stoppedAfterTheirTest).doesNotContain(server);
    }

    @Test
    @Order(4)
    void aServerOfTheClassScopeServesEveryTest(LoopbackServer shared) throws IOException {
        assertThat(shared).isSameAs(classServer);
        assertAccepts(shared.port());
    }

    @AfterAll
    static void serversOfATestAreStoppedWhenItEnds() {
        assertThat(stoppedAfterTheirTest).hasSize(2).allSatisfy((server) -> assertThatExceptionOfType(IOException.class)
            .isThrownBy(() -> assertAccepts(server.port())));
    }

    private static void assertAccepts(int port) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            assertThat(socket.isConnected()).isTrue();
        }
    }
}
