/** The order service example: a Spring Boot application that writes an outbox event with every order change. */
@NullMarked
package dev.outbox.example.orders;

import org.jspecify.annotations.NullMarked;
