/**
 * Helpers on the record API that the outbox modules share. Apart from {@link dev.outbox.internal} because they use
 * {@code dev.outbox}, which itself uses that package. Not API: they may change in any release.
 */
@NullMarked
package dev.outbox.internal.repository;

import org.jspecify.annotations.NullMarked;
