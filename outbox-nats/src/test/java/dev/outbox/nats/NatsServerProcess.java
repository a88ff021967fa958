package dev.outbox.nats;

import dev.outbox.testkit.TestBrokers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A NATS server of a test's own, with JetStream and a configuration the shared server cannot have (users and their
 * permissions): the {@code nats-server} binary of this machine ({@code OUTBOX_TEST_NATS_SERVER} names another),
 * started on a free port of 127.0.0.1 with its storage in a temporary folder; {@link #close()} kills it and removes
 * the folder. Without the binary the test is skipped, or fails when brokers are required.
 */
final class NatsServerProcess implements AutoCloseable {

    private static final Duration START_DEADLINE = Duration.ofSeconds(30);

    private final Process process;
    private final Path folder;
    private final int port;

    private NatsServerProcess(Process process, Path folder, int port) {
        this.process = process;
        this.folder = folder;
        this.port = port;
    }

    /** Starts a server with {@code accounts}, the body of its {@code accounts} block. */
    static NatsServerProcess start(String accounts) throws IOException, InterruptedException {
        String binary = Objects.requireNonNullElse(System.getenv("OUTBOX_TEST_NATS_SERVER"), "nats-server");
        Path folder = Files.createTempDirectory("outbox-nats-server");
        int port = freePort();
        Path config = folder.resolve("server.conf");
        Files.writeString(config, "listen: \"127.0.0.1:" + port + "\"\n"
                + "jetstream { store_dir: \"" + folder.resolve("store") + "\" }\n"
                + "accounts {\n" + accounts + "\n}\n", StandardCharsets.UTF_8);
        Process process;
        try {
            process = new ProcessBuilder(binary, "-c", config.toString())
                    .redirectErrorStream(true).redirectOutput(folder.resolve("server.log").toFile()).start();
        } catch (IOException e) {
            delete(folder);
            throw TestBrokers.unavailable("cannot run " + binary + " for a NATS server of the test's own", e);
        }
        NatsServerProcess server = new NatsServerProcess(process, folder, port);
        server.awaitListening();
        return server;
    }

    String url() {
        return "nats://127.0.0.1:" + port;
    }

    private void awaitListening() throws IOException, InterruptedException {
        Instant deadline = Instant.now().plus(START_DEADLINE);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                String log = Files.readString(folder.resolve("server.log"));
                close();
                throw new IllegalStateException("nats-server exited with " + process.exitValue() + ": " + log);
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                TimeUnit.MILLISECONDS.sleep(50);
            }
        }
        close();
        throw new IllegalStateException("nats-server did not listen on port " + port + " within " + START_DEADLINE);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        delete(folder);
    }

    private static void delete(Path folder) {
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
