/** The {@code outbox} actuator endpoint and health indicator: views of the monitor and the coordinator. */
@NullMarked
package dev.outbox.boot.actuate;

import org.jspecify.annotations.NullMarked;
