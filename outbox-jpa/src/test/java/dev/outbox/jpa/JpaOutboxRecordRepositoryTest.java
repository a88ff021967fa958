package dev.outbox.jpa;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.jpa.testing.JpaOutboxFixture;
import dev.outbox.jpa.testing.TestDatabase;
import org.junit.jupiter.api.Test;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;

/** The write path on JPA, with plain Spring ORM transactions on H2. */
class JpaOutboxRecordRepositoryTest extends AbstractWriteRepositoryTest<JpaOutboxFixture> {

    @Override
    protected JpaOutboxFixture createFixture() {
        return JpaOutboxFixture.create(TestDatabase.Kind.H2, PAYLOAD_LIMIT);
    }

    @Test
    void aPersistenceUnitWithoutTheOutboxEntityIsReportedWithTheFix() {
        LocalContainerEntityManagerFactoryBean withoutOutbox = JpaOutboxFixture.entityManagerFactory(
                fixture.database(), "dev.outbox.jpa.testing");
        try {
            assertThatThrownBy(() -> JpaOutboxRecordRepository.create(withoutOutbox.getObject(),
                    fixture.transactionManager(), PAYLOAD_LIMIT, CommitHooks.NONE))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("does not map dev.outbox.jpa.OutboxRecordEntity")
                    .hasMessageContaining("@EntityScan");
        } finally {
            withoutOutbox.destroy();
        }
    }
}
