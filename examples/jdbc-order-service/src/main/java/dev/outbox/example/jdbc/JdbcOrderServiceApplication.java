package dev.outbox.example.jdbc;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

@SpringBootApplication
public class JdbcOrderServiceApplication {

    public static void main(String[] args) {
        SpringApplication.run(JdbcOrderServiceApplication.class, args);
    }
}
