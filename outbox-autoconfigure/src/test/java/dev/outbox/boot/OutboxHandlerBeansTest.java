package dev.outbox.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.handler.OutboxHandler;
import dev.outbox.retry.OutboxRetryPolicy;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RootBeanDefinition;

/** Which retry policy bean is the default once handlers name policies of their own. */
class OutboxHandlerBeansTest {

    private static final OutboxRetryPolicy FROM_PROPERTIES = OutboxRetryPolicy.fixed(Duration.ofSeconds(1));

    public static class Handlers {
        @OutboxHandler(id = "ledger", retryPolicy = "ledgerPolicy")
        public void book(String event) {
        }
    }

    private final DefaultListableBeanFactory beans = new DefaultListableBeanFactory();

    @Test
    void withoutPolicyBeansTheDefaultComesFromTheProperties() {
        assertThat(defaultPolicy()).isSameAs(FROM_PROPERTIES);
    }

    @Test
    void aPolicyThatAHandlerNamesIsThatHandlersOnly() {
        beans.registerBeanDefinition("handlers", new RootBeanDefinition(Handlers.class));
        policy("ledgerPolicy", false);

        assertThat(defaultPolicy()).isSameAs(FROM_PROPERTIES);
        assertThat(handlerBeans().registrations()).singleElement()
                .satisfies(handler -> assertThat(handler.getRetryPolicy()).isSameAs(beans.getBean("ledgerPolicy")));
    }

    @Test
    void anyOtherSinglePolicyIsTheDefault() {
        beans.registerBeanDefinition("handlers", new RootBeanDefinition(Handlers.class));
        policy("ledgerPolicy", false);
        policy("myPolicy", false);

        assertThat(defaultPolicy()).isSameAs(beans.getBean("myPolicy"));
    }

    @Test
    void amongSeveralTheOneNamedOutboxRetryPolicyOrElseThePrimaryOneIsTheDefault() {
        policy("first", false);
        policy("second", true);
        assertThat(defaultPolicy()).isSameAs(beans.getBean("second"));

        policy("outboxRetryPolicy", false);
        assertThat(defaultPolicy()).isSameAs(beans.getBean("outboxRetryPolicy"));
    }

    @Test
    void severalCandidatesWithoutAWayToTellAreRefusedNamingThem() {
        policy("first", false);
        policy("second", false);

        assertThatThrownBy(this::defaultPolicy).isInstanceOf(IllegalStateException.class)
                .hasMessage("Outbox: 2 OutboxRetryPolicy beans [first, second] could each be the default retry policy;"
                        + " make the default one @Primary or name it 'outboxRetryPolicy', or name the others in"
                        + " @OutboxHandler(retryPolicy = ...)");
    }

    private void policy(String name, boolean primary) {
        RootBeanDefinition definition = new RootBeanDefinition(OutboxRetryPolicy.class,
                () -> OutboxRetryPolicy.fixed(Duration.ofMinutes(1)));
        definition.setPrimary(primary);
        beans.registerBeanDefinition(name, definition);
    }

    @Test
    void theDefaultIsBoundedByMaxRetriesUnlessItHasABoundOfItsOwn() {
        assertThat(handlerBeans().defaultRetryPolicy().maxRetries()).as("outbox.retry.max-retries").hasValue(7);

        RootBeanDefinition bounded = new RootBeanDefinition(OutboxRetryPolicy.class,
                () -> OutboxRetryPolicy.fixed(Duration.ofMinutes(1)).withMaxRetries(2));
        beans.registerBeanDefinition("boundedPolicy", bounded);
        assertThat(handlerBeans().defaultRetryPolicy().maxRetries()).hasValue(2);
    }

    private OutboxRetryPolicy defaultPolicy() {
        return handlerBeans().choosePolicy(() -> FROM_PROPERTIES);
    }

    /** The handler beans as the starter sees them, with {@code outbox.retry.max-retries=7}. */
    private OutboxHandlerBeans handlerBeans() {
        OutboxProperties.Retry retry = new OutboxProperties.Retry(7, OutboxProperties.RetryPolicyType.FIXED,
                new OutboxProperties.Retry.Fixed(Duration.ofSeconds(1)),
                new OutboxProperties.Retry.Exponential(Duration.ofSeconds(2), Duration.ofSeconds(60), 2.0),
                new OutboxProperties.Retry.Jittered(OutboxProperties.RetryPolicyType.EXPONENTIAL,
                        Duration.ofMillis(500)));
        return new OutboxHandlerBeans(beans, retry);
    }
}
