/** The REST API of the order service and its problem responses. */
@NullMarked
package dev.outbox.example.orders.web;

import org.jspecify.annotations.NullMarked;
