package dev.outbox;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.UUID;

/**
 * Time-ordered UUIDs (version 7, RFC 9562): inserts land at the right-hand end of the primary-key index instead of at
 * random places, which keeps the write path cheap on B-tree databases.
 */
final class RecordIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private RecordIds() {
    }

    static String next(Instant now) {
        long millis = now.toEpochMilli() & 0xFFFF_FFFF_FFFFL;
        long randA = RANDOM.nextInt(1 << 12);
        long mostSignificant = (millis << 16) | (0x7L << 12) | randA;
        long leastSignificant = (RANDOM.nextLong() & 0x3FFF_FFFF_FFFF_FFFFL) | 0x8000_0000_0000_0000L;
        return new UUID(mostSignificant, leastSignificant).toString();
    }
}
