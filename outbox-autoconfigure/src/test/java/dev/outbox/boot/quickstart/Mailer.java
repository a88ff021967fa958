package dev.outbox.boot.quickstart;

/** What the README's handler calls: the application's own mail client. */
public interface Mailer {

    void send(String to, String subject, String idempotencyKey);
}
