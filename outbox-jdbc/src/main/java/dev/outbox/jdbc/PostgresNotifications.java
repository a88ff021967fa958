package dev.outbox.jdbc;

import dev.outbox.internal.DaemonThreads;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.spi.WakeUpSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * PostgreSQL LISTEN/NOTIFY wake-ups between instances. A transaction that saved records notifies the channel once, at
 * commit, with the partitions it wrote ({@link #notifyPartitions}); every instance listens on a connection of its own
 * and wakes its processor for the notified partitions, which wakes only if it owns one of them. A notification only
 * triggers a fetch, and the table stays the source of truth: a lost notification (the listener reconnecting, say)
 * delays records until the next poll, never loses them.
 */
public final class PostgresNotifications implements WakeUpSource {

    private static final Logger log = LoggerFactory.getLogger(PostgresNotifications.class);
    private static final int WAIT_MILLIS = 250;
    private static final Duration RECONNECT_DELAY = Duration.ofSeconds(2);
    /** Longest {@link #start} waits for the LISTEN: a slow database delays the start, never blocks it. */
    private static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(5);

    private final DataSource dataSource;
    private final String channel;
    private volatile boolean running;
    private @Nullable Thread listener;

    /**
     * @param dataSource where the listening connection comes from; it is held for as long as this runs
     * @param channel {@link OutboxTables#notificationChannel()} of the tables whose writes wake this instance
     */
    public PostgresNotifications(DataSource dataSource, String channel) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.channel = Objects.requireNonNull(channel, "channel");
    }

    /**
     * Sends the notification for these partitions on {@code channel}, in the current transaction of {@code jdbc}'s
     * data source.
     */
    public static void notifyPartitions(JdbcTemplate jdbc, String channel, Collection<Integer> partitions) {
        String payload = partitions.stream().sorted().map(String::valueOf).collect(Collectors.joining(","));
        jdbc.query("SELECT pg_notify(?, ?)", rs -> null, channel, payload);
    }

    /**
     * Starts listening on a thread of its own and returns once the LISTEN is in place (or failed, or
     * {@link #LISTEN_TIMEOUT} passed), so that an application that reports ready is woken by the first commits.
     */
    @Override
    public void start(Target target) {
        CountDownLatch listening = new CountDownLatch(1);
        synchronized (this) {
            if (running) {
                return;
            }
            running = true;
            listener = DaemonThreads.start("outbox-listen-notify", () -> listen(target, listening));
        }
        try {
            if (!listening.await(LISTEN_TIMEOUT.toNanos(), TimeUnit.NANOSECONDS)) {
                log.info("Outbox: LISTEN not in place within {}; starting anyway, polling covers", LISTEN_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        Thread thread;
        synchronized (this) {
            running = false;
            thread = listener;
            listener = null;
        }
        if (thread != null) {
            thread.interrupt();
            try {
                thread.join(Duration.ofSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void listen(Target target, CountDownLatch listening) {
        boolean failing = false;
        while (running) {
            try (Connection connection = dataSource.getConnection()) {
                connection.setAutoCommit(true);
                try (Statement statement = connection.createStatement()) {
                    // a quoted identifier: the exact text pg_notify was given (OutboxTables keeps it free of quotes)
                    statement.execute("LISTEN \"" + channel + "\"");
                }
                if (failing) {
                    log.info("Outbox: listening for PostgreSQL notifications again");
                    failing = false;
                }
                listening.countDown();
                // Anything committed while we were not listening is found by this fetch, not by a notification.
                target.wakeUp();
                PGConnection pg = connection.unwrap(PGConnection.class);
                while (running) {
                    PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
                    if (notifications != null) {
                        wakeUp(target, notifications);
                    }
                }
            } catch (SQLException | RuntimeException e) {
                listening.countDown(); // the start waits no longer: polling covers meanwhile
                if (!running) {
                    return;
                }
                if (!failing) {
                    log.warn("Outbox: PostgreSQL notifications unavailable ({}); polling covers, reconnecting",
                            e.toString());
                    failing = true;
                }
                sleep();
            }
        }
    }

    private static void wakeUp(Target target, PGNotification[] notifications) {
        Set<Integer> partitions = new HashSet<>();
        for (PGNotification notification : notifications) {
            for (String partition : notification.getParameter().split(",")) {
                try {
                    if (!partition.isBlank()) {
                        partitions.add(Integer.parseInt(partition.strip()));
                    }
                } catch (NumberFormatException malformed) {
                    target.wakeUp(); // not ours to judge: a fetch is cheap
                    return;
                }
            }
        }
        target.wakeUpFor(partitions);
    }

    private void sleep() {
        try {
            Thread.sleep(RECONNECT_DELAY.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
