package dev.outbox.boot;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.info.BuildProperties;
import org.springframework.core.env.Environment;

/**
 * Who this instance is in the instance table: {@code outbox.instance.id} when set (a pod name survives restarts),
 * otherwise the host name with a random suffix.
 *
 * @param id the instance id
 * @param hostname the host name, for operators
 * @param port {@code server.port}, or 0
 * @param version {@code outbox.instance.version}, else the build's version, else null
 */
public record OutboxInstanceIdentity(String id, String hostname, int port, @Nullable String version) {

    static OutboxInstanceIdentity of(OutboxProperties.Instance instance, Environment environment,
            @Nullable BuildProperties build) {
        String hostname = localHostname();
        String id = instance.id().isBlank()
                ? hostname + "-" + UUID.randomUUID().toString().substring(0, 8)
                : instance.id();
        String version = !instance.version().isBlank() ? instance.version() : build == null ? null : build.getVersion();
        return new OutboxInstanceIdentity(id, hostname, environment.getProperty("server.port", Integer.class, 0),
                version);
    }

    private static String localHostname() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown-host";
        }
    }
}
