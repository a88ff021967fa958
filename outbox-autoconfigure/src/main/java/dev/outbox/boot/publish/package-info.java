/** What the broker publishers' auto-configurations share: headers, routing and registration from properties. */
@NullMarked
package dev.outbox.boot.publish;

import org.jspecify.annotations.NullMarked;
