package dev.outbox.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.InstanceStoreContract;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.PartitionStoreContract;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Both cluster store contracts against the in-memory store, whose "database clock" is a {@link MutableClock} set far
 * from the JVM's clock, plus what is particular to it.
 */
class InMemoryClusterStoreTest {

    /** Years away from the JVM's clock, so that a store reading the JVM's clock would fail the contracts. */
    private static final Instant DATABASE_TIME = Instant.parse("2001-02-03T04:05:06.123456Z");

    private final MutableClock clock = new MutableClock(DATABASE_TIME);
    private final InMemoryClusterStore store = new InMemoryClusterStore(clock);

    @Nested
    class Instances extends InstanceStoreContract {

        @Override
        protected InstanceStore instanceStore() {
            return store;
        }

        @Override
        protected Instant databaseNow() {
            return clock.instant();
        }

        @Override
        protected void letDatabaseTimePass(Duration duration) {
            clock.advance(duration);
        }
    }

    @Nested
    class Partitions extends PartitionStoreContract {

        @Override
        protected PartitionStore partitionStore() {
            return store;
        }

        @Override
        protected InstanceStore instanceStore() {
            return store;
        }

        @Override
        protected Instant databaseNow() {
            return clock.instant();
        }

        @Override
        protected void letDatabaseTimePass(Duration duration) {
            clock.advance(duration);
        }
    }

    @Test
    void whileTheDatabaseClockStandsStillAHeartbeatNeverAges() {
        store.register("node-a", "host-a", 8080);

        assertThat(store.findLive(Duration.ZERO)).singleElement().satisfies(a -> {
            assertThat(a.startedAt()).isEqualTo(DATABASE_TIME);
            assertThat(a.heartbeatAge()).isZero();
        });
        assertThat(store.removeStale(Duration.ZERO)).isZero();
        assertThat(store.claim(7, 0, "node-a", Duration.ZERO)).isTrue();
        assertThat(store.claim(7, 1, "node-b", Duration.ZERO)).as("node-a is live at age zero").isFalse();
    }

    @Test
    void aHeartbeatAgesExactlyAsTheDatabaseClockMoves() {
        store.register("node-a", "host-a", 8080);
        clock.advance(Duration.ofSeconds(30));

        InstanceState a = store.findLive(Duration.ofSeconds(30)).get(0);
        assertThat(a.heartbeatAge()).isEqualTo(Duration.ofSeconds(30));
        assertThat(store.findLive(Duration.ofSeconds(30).minusNanos(1000))).isEmpty();
        assertThat(store.removeStale(Duration.ofSeconds(30))).isZero();
        assertThat(store.removeStale(Duration.ofSeconds(29))).isEqualTo(1);
    }

    @Test
    void timesAreKeptAtMicrosecondPrecisionAsDatabasesStoreThem() {
        clock.set(DATABASE_TIME.plusNanos(789));

        store.register("node-a", "host-a", 8080);

        assertThat(store.findLive(Duration.ofHours(1)).get(0).lastHeartbeat()).isEqualTo(DATABASE_TIME);
    }
}
