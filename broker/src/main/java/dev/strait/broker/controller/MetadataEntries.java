package dev.strait.broker.controller;

import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecordSerde;
import java.util.List;

/**
 * The payload of a metadata log entry: one controller decision, a batch of records that commits and replays all
 * or nothing ({@link MetadataRecordSerde#serializeBatch}). Logs written before decisions were batched hold one
 * bare record per entry; those still read, as a batch of one. The two forms differ in their first byte: a batch
 * starts with its version (0), a bare record with its type (never 0).
 */
final class MetadataEntries {

    private MetadataEntries() {}

    static byte[] encode(List<MetadataRecord> batch) {
        return MetadataRecordSerde.serializeBatch(batch);
    }

    /** @throws IllegalArgumentException if the payload is neither form */
    static List<MetadataRecord> decode(byte[] payload) {
        if (payload.length == 0) {
            throw new IllegalArgumentException("empty metadata entry");
        }
        if (payload[0] == 0) {
            return MetadataRecordSerde.deserializeBatch(payload);
        }
        return List.of(MetadataRecordSerde.deserialize(payload));
    }
}
