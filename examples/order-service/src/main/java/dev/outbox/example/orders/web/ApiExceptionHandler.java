package dev.outbox.example.orders.web;

import dev.outbox.example.orders.order.InvalidOrderException;
import dev.outbox.example.orders.order.OrderConflictException;
import dev.outbox.example.orders.order.OrderNotFoundException;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.orm.ObjectOptimisticLockingFailureException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Answers errors with RFC 9457 problem details ({@code application/problem+json}): rule violations with 400 or 409,
 * unknown orders with 404. Spring MVC's own errors (unreadable JSON, wrong method, ...) get problem bodies from the
 * base class.
 */
@RestControllerAdvice
public class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    @ExceptionHandler
    ProblemDetail invalidOrder(InvalidOrderException e) {
        return problem(HttpStatus.BAD_REQUEST, "invalid-order", "Invalid order", e.getMessage(), null);
    }

    @ExceptionHandler
    ProblemDetail orderNotFound(OrderNotFoundException e) {
        return problem(HttpStatus.NOT_FOUND, "order-not-found", "Order not found", e.getMessage(), e.getOrderId());
    }

    @ExceptionHandler
    ProblemDetail orderConflict(OrderConflictException e) {
        return problem(HttpStatus.CONFLICT, "order-conflict", "Order cannot be changed", e.getMessage(),
                e.getOrderId());
    }

    /** A concurrent transaction changed the same order first: the JPA version check rejected this one. */
    @ExceptionHandler
    ProblemDetail concurrentChange(ObjectOptimisticLockingFailureException e) {
        Object id = e.getIdentifier();
        return problem(HttpStatus.CONFLICT, "order-conflict", "Order cannot be changed",
                "The order was changed concurrently; read it again and retry", id == null ? null : id.toString());
    }

    private static ProblemDetail problem(HttpStatus status, String type, String title, @Nullable String detail,
            @Nullable String orderId) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setType(URI.create("urn:problem-type:order-service:" + type));
        problem.setTitle(title);
        if (orderId != null) {
            problem.setProperty("orderId", orderId);
        }
        return problem;
    }
}
