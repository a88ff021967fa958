-- What the cluster tests observe, created next to the outbox tables before any node starts (PostgreSQL only).
-- Nodes tell who they are through their connections' application_name (the JDBC URL's ApplicationName).

-- Every call of a node's handler: which node, under which partition epoch, and when the call began by the node's
-- clock (handled_at is when the row was written, which can be much later for a node that was frozen in between).
CREATE TABLE handled_record (
    id           BIGSERIAL PRIMARY KEY,
    record_id    VARCHAR(36)  NOT NULL,
    aggregate_id VARCHAR(255) NOT NULL,
    sequence_no  BIGINT       NOT NULL,
    instance_id  VARCHAR(255) NOT NULL,
    epoch        BIGINT       NOT NULL,
    partition_no INT          NOT NULL,
    invoked_at   TIMESTAMPTZ  NOT NULL,
    handled_at   TIMESTAMPTZ  DEFAULT now()
);

-- Every status write on a record (complete, retry, fail): who wrote it and who owned the partition at that moment.
CREATE TABLE status_write (
    id             BIGSERIAL PRIMARY KEY,
    record_id      VARCHAR(36)  NOT NULL,
    partition_no   INT          NOT NULL,
    old_status     VARCHAR(20)  NOT NULL,
    new_status     VARCHAR(20)  NOT NULL,
    writer         VARCHAR(255) NOT NULL,
    owner_at_write VARCHAR(255),
    epoch_at_write BIGINT,
    written_at     TIMESTAMPTZ  NOT NULL DEFAULT clock_timestamp()
);

CREATE FUNCTION observe_status_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO status_write (record_id, partition_no, old_status, new_status, writer, owner_at_write, epoch_at_write)
    SELECT NEW.id, NEW.partition_no, OLD.status, NEW.status, current_setting('application_name'),
           p.owner_instance_id, p.epoch
    FROM outbox_partition p
    WHERE p.partition_no = NEW.partition_no;
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_record_status_write AFTER UPDATE ON outbox_record
    FOR EACH ROW EXECUTE FUNCTION observe_status_write();

-- Every change of a partition's owner or epoch: claims (epoch + 1) and releases (owner to NULL).
CREATE TABLE ownership_change (
    id           BIGSERIAL PRIMARY KEY,
    partition_no INT          NOT NULL,
    old_owner    VARCHAR(255),
    new_owner    VARCHAR(255),
    old_epoch    BIGINT       NOT NULL,
    new_epoch    BIGINT       NOT NULL,
    changed_by   VARCHAR(255) NOT NULL,
    changed_at   TIMESTAMPTZ  NOT NULL DEFAULT clock_timestamp()
);

CREATE FUNCTION observe_ownership_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ownership_change (partition_no, old_owner, new_owner, old_epoch, new_epoch, changed_by)
    VALUES (NEW.partition_no, OLD.owner_instance_id, NEW.owner_instance_id, OLD.epoch, NEW.epoch,
            current_setting('application_name'));
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_partition_ownership_change AFTER UPDATE ON outbox_partition
    FOR EACH ROW
    WHEN (OLD.owner_instance_id IS DISTINCT FROM NEW.owner_instance_id OR OLD.epoch <> NEW.epoch)
    EXECUTE FUNCTION observe_ownership_change();

-- Every instance row deleted: by the instance itself (graceful stop) or by another one (removed as stale).
CREATE TABLE instance_departure (
    id             BIGSERIAL PRIMARY KEY,
    instance_id    VARCHAR(255) NOT NULL,
    last_heartbeat TIMESTAMPTZ  NOT NULL,
    removed_by     VARCHAR(255) NOT NULL,
    removed_at     TIMESTAMPTZ  NOT NULL DEFAULT clock_timestamp()
);

CREATE FUNCTION observe_instance_departure() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO instance_departure (instance_id, last_heartbeat, removed_by)
    VALUES (OLD.instance_id, OLD.last_heartbeat, current_setting('application_name'));
    RETURN NULL;
END
$$;

CREATE TRIGGER outbox_instance_departure AFTER DELETE ON outbox_instance
    FOR EACH ROW EXECUTE FUNCTION observe_instance_departure();

-- The effects of the transactional projection handler (cluster.projection, ProjectionWriter), written in the
-- transaction that completes their record: a counter per aggregate, and a row per call that committed. No unique key
-- on record_id: a duplicate must show, not fail.
CREATE TABLE projection_counter (
    aggregate_id VARCHAR(255) PRIMARY KEY,
    handled      BIGINT       NOT NULL
);

CREATE TABLE projection_row (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    record_id    VARCHAR(36)  NOT NULL,
    aggregate_id VARCHAR(255) NOT NULL,
    sequence_no  BIGINT       NOT NULL,
    instance_id  VARCHAR(255) NOT NULL,
    epoch        BIGINT       NOT NULL,
    partition_no INT          NOT NULL
);

-- Event types the record processor of nodes started with cluster.failure-switch=true fails, while they are listed.
CREATE TABLE failing_event_type (
    event_type VARCHAR(255) PRIMARY KEY
);
