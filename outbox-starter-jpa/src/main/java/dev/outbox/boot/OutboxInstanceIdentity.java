package dev.outbox.boot;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;
import org.springframework.core.env.Environment;

/**
 * Who this instance is in the instance table: {@code outbox.instance.id} when set (a pod name survives restarts),
 * otherwise the host name with a random suffix.
 *
 * @param id the instance id
 * @param hostname the host name, for operators
 * @param port {@code server.port}, or 0
 */
public record OutboxInstanceIdentity(String id, String hostname, int port) {

    static OutboxInstanceIdentity of(OutboxProperties.Instance instance, Environment environment) {
        String hostname = localHostname();
        String id = instance.id().isBlank()
                ? hostname + "-" + UUID.randomUUID().toString().substring(0, 8)
                : instance.id();
        return new OutboxInstanceIdentity(id, hostname, environment.getProperty("server.port", Integer.class, 0));
    }

    private static String localHostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
