package dev.outbox.jdbc;

import java.util.Map;
import java.util.Objects;

/**
 * Where the current thread is in the life of its innermost Spring transaction. Spring keeps no flag for "this
 * transaction is committing": a synchronization registered during {@code beforeCommit} is never called back for it,
 * and data access in {@code afterCommit} still finds the committed transaction's resources bound. The frames of the
 * transaction manager and of the transaction templates tell: the innermost of them decides. Read once per joined
 * transaction (at its first record) and for the records saved after its commit began, never per record otherwise.
 */
enum TransactionPhase {

    /** In the transaction's work: records can wait for the commit. */
    RUNNING,

    /** In {@code beforeCommit}, {@code beforeCompletion} or the commit itself (a JPA flush): too late to wait. */
    COMMITTING,

    /** In {@code afterCommit} or {@code afterCompletion}: the transaction is over. */
    COMPLETED;

    private static final String TRANSACTION_MANAGER =
            "org.springframework.transaction.support.AbstractPlatformTransactionManager";

    private static final Map<String, Map<String, TransactionPhase>> FRAMES = Map.of(
            TRANSACTION_MANAGER, Map.of(
                    "triggerBeforeCommit", COMMITTING,
                    "triggerBeforeCompletion", COMMITTING,
                    "processCommit", COMMITTING,
                    "triggerAfterCommit", COMPLETED,
                    "triggerAfterCompletion", COMPLETED,
                    "invokeAfterCompletion", COMPLETED),
            "org.springframework.transaction.support.TransactionTemplate", Map.of("execute", RUNNING),
            "org.springframework.transaction.interceptor.TransactionAspectSupport",
                    Map.of("invokeWithinTransaction", RUNNING));

    private static final StackWalker WALKER = StackWalker.getInstance();

    static TransactionPhase current() {
        return WALKER.walk(frames -> frames
                .map(frame -> {
                    Map<String, TransactionPhase> methods = FRAMES.get(frame.getClassName());
                    return methods == null ? null : methods.get(frame.getMethodName());
                })
                .filter(Objects::nonNull)
                .findFirst())
                .orElse(RUNNING);
    }
}
