package dev.outbox.jdbc.dialect;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses two outboxes on the same tables: where the databases tell where the tables are ({@link TablesLocation}), the
 * same tables of one database, whichever DataSources reach them; else the same tables of one DataSource object. A
 * database that cannot tell is no reason to stop: its outboxes are told apart by their DataSource object, and one INFO
 * line says so.
 */
public final class SharedTablesCheck {

    private static final Logger log = LoggerFactory.getLogger(SharedTablesCheck.class);

    private SharedTablesCheck() {
    }

    /**
     * An outbox's tables on its DataSource.
     *
     * @param owner names the outbox in messages, e.g. its property prefix
     */
    public record Claim(String owner, DataSource dataSource, OutboxTables tables) {
        public Claim {
            Objects.requireNonNull(owner, "owner");
            Objects.requireNonNull(dataSource, "dataSource");
            Objects.requireNonNull(tables, "tables");
        }
    }

    /**
     * Asks each claim's database where its tables are, on one connection each.
     *
     * @throws IllegalArgumentException when a claim takes the tables of an earlier one, naming both and what they
     *     share
     */
    public static void requireDistinct(List<Claim> claims) {
        List<Located> outboxes = new ArrayList<>();
        claims.forEach(claim -> outboxes.add(Located.locate(claim)));
        logUnlocated(outboxes);
        for (int i = 1; i < outboxes.size(); i++) {
            Located tables = outboxes.get(i);
            outboxes.subList(0, i).stream().filter(tables::clashesWith).findFirst().ifPresent(other -> {
                throw new IllegalArgumentException(tables.claim().owner() + " uses the tables of "
                        + other.claim().owner() + ": " + tables.shared(other) + "; give it another table-prefix or "
                        + "schema");
            });
        }
    }

    /** One line for the outboxes whose database could not tell where their tables are, with the first reason. */
    private static void logUnlocated(List<Located> outboxes) {
        List<Located> unlocated = outboxes.stream().filter(tables -> tables.location() == null).toList();
        if (unlocated.isEmpty()) {
            return;
        }
        log.info("Outbox: cannot ask the database where the tables of {} are ({}); those are told apart from the other "
                + "outboxes' by their DataSource object only",
                unlocated.stream().map(tables -> tables.claim().owner()).toList(), unlocated.get(0).unlocatedBecause());
        unlocated.forEach(tables -> log.debug("Outbox: the database of {} did not tell where its tables are: {}",
                tables.claim().owner(), tables.unlocatedBecause()));
    }

    /**
     * A claim with where its tables are as the database tells, null when it cannot ({@code unlocatedBecause} says
     * why).
     */
    private record Located(Claim claim, @Nullable TablesLocation location, @Nullable String unlocatedBecause) {

        static Located locate(Claim claim) {
            try {
                return new Located(claim, TablesLocation.read(claim.dataSource(), claim.tables()), null);
            } catch (RuntimeException e) {
                // not a reason to stop: the check falls back to the DataSource object; a DataSource that fails
                // altogether stops the start when the outbox is made, with its own message
                return new Located(claim, null, String.valueOf(e.getMessage()));
            }
        }

        boolean clashesWith(Located other) {
            return location != null && location.equals(other.location)
                    || claim.dataSource() == other.claim.dataSource() && claim.tables().equals(other.claim.tables());
        }

        /** What the two share, for the message. */
        String shared(Located other) {
            return location != null && location.equals(other.location) ? location.toString()
                    : claim.tables() + " on the same DataSource";
        }
    }
}
