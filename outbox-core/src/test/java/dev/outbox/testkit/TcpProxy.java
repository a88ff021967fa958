package dev.outbox.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A TCP proxy on 127.0.0.1 between a client and a server, for fault tests: {@link #cutFor(Duration)} closes every
 * connection and refuses new ones (accepts and closes them at once) until the time is up, as a network partition
 * between the application and a broker would.
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.to("127.0.0.1", 5672)) {
 *     connect to 127.0.0.1:proxy.port() ...
 *     proxy.cutFor(Duration.ofSeconds(10));
 * }
 * }</pre>
 */
public final class TcpProxy implements AutoCloseable {

    private final String targetHost;
    private final IntSupplier targetPort;
    private final ServerSocket server;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** Starts at creation: an initial value far in the past would overflow the comparison in {@link #isCut()}. */
    private final AtomicLong cutUntilNanos = new AtomicLong(System.nanoTime());
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger cuts = new AtomicInteger();
    private volatile boolean closed;

    private TcpProxy(String targetHost, IntSupplier targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.server = new ServerSocket();
        server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        Thread acceptor = new Thread(this::accept, "tcp-proxy-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public static TcpProxy to(String targetHost, int targetPort) {
        return to(targetHost, () -> targetPort);
    }

    /**
     * A proxy whose target port is known only after the proxy's own: a server that must be told the proxy's port
     * before it starts (Kafka's advertised listener) and binds a port of its own choosing.
     */
    public static TcpProxy to(String targetHost, IntSupplier targetPort) {
        try {
            return new TcpProxy(targetHost, targetPort);
        } catch (IOException e) {
            throw new IllegalStateException("cannot open a proxy port on 127.0.0.1", e);
        }
    }

    /** The proxy's port on 127.0.0.1. */
    public int port() {
        return server.getLocalPort();
    }

    /** Connections accepted and passed through so far. */
    public int connections() {
        return connections.get();
    }

    /** Connections closed by {@link #cutFor}, or refused during a cut, so far. */
    public int cuts() {
        return cuts.get();
    }

    /** Closes every connection now and refuses new ones for {@code duration}. Returns at once. */
    public void cutFor(Duration duration) {
        cutUntilNanos.set(System.nanoTime() + duration.toNanos());
        for (Socket socket : open) {
            cuts.incrementAndGet();
            closeQuietly(socket);
        }
        open.clear();
    }

    /** Whether a cut is in force now. */
    public boolean isCut() {
        return System.nanoTime() - cutUntilNanos.get() < 0;
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(server);
        open.forEach(TcpProxy::closeQuietly);
        open.clear();
    }

    private void accept() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (isCut()) {
                cuts.incrementAndGet();
                closeQuietly(client);
                continue;
            }
            try {
                Socket upstream = new Socket(targetHost, targetPort.getAsInt());
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                connections.incrementAndGet();
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                closeQuietly(client);
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed: close both below
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-proxy-pipe");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }
}
