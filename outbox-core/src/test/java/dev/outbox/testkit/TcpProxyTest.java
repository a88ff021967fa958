package dev.outbox.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TcpProxyTest {

    private final EchoServer echo = new EchoServer();

    @AfterEach
    void close() throws IOException {
        echo.close();
    }

    // Found by DatabaseOutageTest: a proxy that had never been cut refused every connection, because its "no cut"
    // start value overflowed the deadline comparison.
    @Test
    void passesBytesBothWaysUntilCutAndAgainAfterTheCut() throws IOException {
        try (TcpProxy proxy = TcpProxy.to("127.0.0.1", echo.port())) {
            assertThat(proxy.isCut()).isFalse();
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                assertThat(roundTrip(client, "hello")).isEqualTo("hello");

                proxy.cutFor(Duration.ofSeconds(2));

                assertThat(proxy.isCut()).isTrue();
                assertThatThrownBy(() -> roundTrip(client, "lost")).isInstanceOf(IOException.class);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> !proxy.isCut());
            try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
                assertThat(roundTrip(client, "again")).isEqualTo("again");
            }
            assertThat(proxy.connections()).isEqualTo(2);
            assertThat(proxy.cuts()).isPositive();
        }
    }

    private static String roundTrip(Socket client, String text) throws IOException {
        client.setSoTimeout(10_000);
        client.getOutputStream().write(text.getBytes());
        client.getOutputStream().flush();
        byte[] read = client.getInputStream().readNBytes(text.length());
        if (read.length < text.length()) {
            throw new IOException("connection closed after " + read.length + " bytes");
        }
        return new String(read);
    }

    /** Echoes every connection's bytes back. */
    private static final class EchoServer implements AutoCloseable {

        private final ServerSocket server;

        EchoServer() {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket socket = server.accept();
                        Thread echo = new Thread(() -> echo(socket), "echo");
                        echo.setDaemon(true);
                        echo.start();
                    } catch (IOException e) {
                        return;
                    }
                }
            }, "echo-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        int port() {
            return server.getLocalPort();
        }

        private static void echo(Socket socket) {
            try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
                in.transferTo(out);
            } catch (IOException e) {
                // the client went away
            }
        }

        @Override
        public void close() throws IOException {
            server.close();
        }
    }
}
