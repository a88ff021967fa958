/**
 * Helpers the outbox modules share: argument checks, thread factories, log throttling. Not API: they may change in any
 * release.
 */
@NullMarked
package dev.outbox.internal;

import org.jspecify.annotations.NullMarked;
