/**
 * Tests of the documentation against the build: what the README and docs/ tell an application to write works.
 */
@NullMarked
package dev.outbox.docs;

import org.jspecify.annotations.NullMarked;
