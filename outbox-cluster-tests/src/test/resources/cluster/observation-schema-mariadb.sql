-- The MariaDB form of observation-schema.sql (see there). Nodes tell who they are through the session variable
-- @outbox_node, which their pool sets on every new connection. Times are UTC, as in the outbox tables.
-- One statement per paragraph: the harness runs them one by one.

CREATE TABLE handled_record (
    id           BIGINT AUTO_INCREMENT PRIMARY KEY,
    record_id    VARCHAR(36)  NOT NULL,
    aggregate_id VARCHAR(255) NOT NULL,
    sequence_no  BIGINT       NOT NULL,
    instance_id  VARCHAR(255) NOT NULL,
    epoch        BIGINT       NOT NULL,
    partition_no INT          NOT NULL,
    invoked_at   DATETIME(6)  NOT NULL,
    handled_at   DATETIME(6)  NOT NULL DEFAULT (UTC_TIMESTAMP(6))
);

CREATE TABLE status_write (
    id             BIGINT AUTO_INCREMENT PRIMARY KEY,
    record_id      VARCHAR(36)  NOT NULL,
    partition_no   INT          NOT NULL,
    old_status     VARCHAR(20)  NOT NULL,
    new_status     VARCHAR(20)  NOT NULL,
    writer         VARCHAR(255) NOT NULL,
    owner_at_write VARCHAR(255),
    epoch_at_write BIGINT,
    written_at     DATETIME(6)  NOT NULL
);

CREATE TRIGGER outbox_record_status_write AFTER UPDATE ON outbox_record FOR EACH ROW
    INSERT INTO status_write (record_id, partition_no, old_status, new_status, writer, owner_at_write,
                              epoch_at_write, written_at)
    SELECT NEW.id, NEW.partition_no, OLD.status, NEW.status, COALESCE(@outbox_node, CURRENT_USER()),
           p.owner_instance_id, p.epoch, UTC_TIMESTAMP(6)
    FROM outbox_partition p
    WHERE p.partition_no = NEW.partition_no;

CREATE TABLE ownership_change (
    id           BIGINT AUTO_INCREMENT PRIMARY KEY,
    partition_no INT          NOT NULL,
    old_owner    VARCHAR(255),
    new_owner    VARCHAR(255),
    old_epoch    BIGINT       NOT NULL,
    new_epoch    BIGINT       NOT NULL,
    changed_by   VARCHAR(255) NOT NULL,
    changed_at   DATETIME(6)  NOT NULL
);

CREATE TRIGGER outbox_partition_ownership_change AFTER UPDATE ON outbox_partition FOR EACH ROW
    INSERT INTO ownership_change (partition_no, old_owner, new_owner, old_epoch, new_epoch, changed_by, changed_at)
    SELECT NEW.partition_no, OLD.owner_instance_id, NEW.owner_instance_id, OLD.epoch, NEW.epoch,
           COALESCE(@outbox_node, CURRENT_USER()), UTC_TIMESTAMP(6)
    FROM DUAL
    WHERE NOT (OLD.owner_instance_id <=> NEW.owner_instance_id) OR OLD.epoch <> NEW.epoch;

CREATE TABLE instance_departure (
    id             BIGINT AUTO_INCREMENT PRIMARY KEY,
    instance_id    VARCHAR(255) NOT NULL,
    last_heartbeat DATETIME(6)  NOT NULL,
    removed_by     VARCHAR(255) NOT NULL,
    removed_at     DATETIME(6)  NOT NULL
);

CREATE TRIGGER outbox_instance_departure AFTER DELETE ON outbox_instance FOR EACH ROW
    INSERT INTO instance_departure (instance_id, last_heartbeat, removed_by, removed_at)
    VALUES (OLD.instance_id, OLD.last_heartbeat, COALESCE(@outbox_node, CURRENT_USER()), UTC_TIMESTAMP(6));

-- Event types the record processor of nodes started with cluster.failure-switch=true fails, while they are listed.
CREATE TABLE failing_event_type (
    event_type VARCHAR(255) PRIMARY KEY
);
