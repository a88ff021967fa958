package dev.outbox.benchmark;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.PayloadSerializer;
import java.time.Clock;
import java.util.List;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The driver's write side: a Spring Boot context with the outbox starter on the driver's data source and
 * {@code outbox.processing.enabled=false}. It has no {@code OutboxRecordProcessor}, so the driver never processes a
 * record; it only writes them, through {@link Outbox#schedule(Object, String)} in Spring transactions.
 */
final class RecordWriter implements AutoCloseable {

    /** The write side's application: auto-configuration only, no beans of its own. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class WriterApplication {
    }

    /** What the JDBC starter's class path lacks: Hibernate and Spring Data JPA. */
    private static final String JPA_AUTO_CONFIGURATIONS =
            "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration,"
                    + "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration";

    private final ConfigurableApplicationContext context;
    private final Outbox outbox;
    private final TransactionTemplate transactions;
    private final PayloadSerializer serializer;
    private final Clock clock;

    RecordWriter(DataSource dataSource) {
        this(dataSource, true);
    }

    /**
     * @param jpa true for the JPA starter's write path (Hibernate's auto-configuration on, as the benchmark's
     *     class path brings it); false for the JDBC starter's: without it the outbox writes through its JDBC
     *     repository in Spring Boot's JDBC transaction manager
     */
    RecordWriter(DataSource dataSource, boolean jpa) {
        this.context = new SpringApplicationBuilder(WriterApplication.class)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .initializers(context -> context.getBeanFactory().registerSingleton("dataSource", dataSource))
                .properties(
                        "outbox.processing.enabled=false",
                        "spring.jpa.hibernate.ddl-auto=none",
                        "spring.jpa.open-in-view=false",
                        // The driver's console is for the benchmark's own output.
                        "logging.level.root=WARN",
                        jpa ? "bench.write-path=jpa" // a property nobody reads: the defaults
                                : "spring.autoconfigure.exclude=" + JPA_AUTO_CONFIGURATIONS)
                .run();
        this.outbox = context.getBean(Outbox.class);
        this.transactions = new TransactionTemplate(context.getBean(PlatformTransactionManager.class));
        this.serializer = context.getBean(PayloadSerializer.class);
        this.clock = context.getBean(Clock.class);
    }

    /** The transaction manager the outbox's records join, by class name. */
    String transactionManager() {
        return context.getBean(PlatformTransactionManager.class).getClass().getSimpleName();
    }

    /** Writes records {@code [from, to)} in one transaction; returns them as saved. */
    List<OutboxRecord> writeTransaction(long from, long to, int aggregates) {
        return transactions.execute(status -> {
            List<OutboxRecord> saved = new java.util.ArrayList<>((int) (to - from));
            for (long index = from; index < to; index++) {
                saved.add(outbox.schedule(BenchEvent.of(index, aggregates), BenchEvent.aggregateId(index, aggregates)));
            }
            return saved;
        });
    }

    /** Writes one record in a transaction of its own; returns it once the transaction has committed. */
    OutboxRecord writeOne(long index, int aggregates) {
        return transactions.execute(status -> outbox.schedule(BenchEvent.of(index, aggregates),
                BenchEvent.aggregateId(index, aggregates)));
    }

    /**
     * The record {@link #writeOne} would write, built the same way (same id scheme, partition, event type and payload
     * text) but not saved: the rows of the plain-JDBC reference.
     */
    OutboxRecord build(long index, int aggregates) {
        BenchEvent event = BenchEvent.of(index, aggregates);
        return build(event, event.aggregateId());
    }

    /** The record {@code outbox.schedule(event, aggregateId)} would write, not saved. */
    OutboxRecord build(Object event, String aggregateId) {
        return OutboxRecord.builder()
                .aggregateId(aggregateId)
                .eventType(event.getClass().getSimpleName())
                .payload(serializer.serialize(event))
                .build(clock);
    }

    /** Runs {@code work} in a transaction of the writer's transaction manager (the one the application would use). */
    void inTransaction(Consumer<Outbox> work) {
        transactions.executeWithoutResult(status -> work.accept(outbox));
    }

    @Override
    public void close() {
        context.close();
    }
}
