/** What operators watch: a cached snapshot of the backlog and the cluster, read with a few grouped queries. */
@NullMarked
package dev.outbox.monitoring;

import org.jspecify.annotations.NullMarked;
