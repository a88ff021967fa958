package dev.outbox.events.scanned;

import org.springframework.modulith.events.Externalized;

/** The only externalized event of this package, for the scan. */
@Externalized("shipments::#{#this.shipmentId()}")
public record ShipmentSent(String shipmentId) {
}
