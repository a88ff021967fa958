package dev.outbox.boot.publish;

import org.jspecify.annotations.Nullable;

/**
 * CloudEvents attributes on every message, in binary mode ({@code ce_id}, {@code ce_type}, {@code ce_source},
 * {@code ce_subject}, {@code ce_time}, {@code ce_specversion}).
 *
 * @param source the {@code ce_source} attribute, a URI reference naming this application (e.g. {@code /orders});
 *     setting it switches the attributes on
 */
public record CloudEventsProperties(@Nullable String source) {
}
