package dev.strait.broker.txn;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Strait's own record format in {@code __transaction_state} (not Kafka's): one record per transactional id, the
 * latest wins, which is also what the log cleaner keeps. Integers big-endian; strings as
 * {@link DataOutputStream#writeUTF} (modified UTF-8, so any Java string round-trips).
 * <ul>
 *   <li>Key: byte version (0), transactional id.</li>
 *   <li>Value, version 0: byte version (0), long producerId, long previousProducerId, long nextProducerId, short
 *       producerEpoch, short lastProducerEpoch, int txnTimeoutMs, byte state ({@link TransactionState#id()}; never
 *       Dead or PrepareEpochFence), long txnStartTimestampMs, long txnLastUpdateTimestampMs, int topic count, and
 *       per topic in name order: topic, int partition count, the partitions ascending.</li>
 *   <li>A null value is a tombstone: the transactional id expired (Dead).</li>
 * </ul>
 * Decoding is strict: a truncated record, trailing bytes, an unknown version or state, a duplicate partition or a
 * value {@link TransactionMetadata} refuses all throw {@link CorruptTransactionRecordException}.
 */
public final class TransactionRecords {

    static final byte KEY_VERSION = 0;
    static final byte VALUE_VERSION = 0;

    private TransactionRecords() {}

    /** A record as the log holds it; a null value is a tombstone. The arrays are not copied: do not change them. */
    public static final class Entry {
        private final byte[] key;
        private final byte @Nullable [] value;

        public Entry(byte[] key, byte @Nullable [] value) {
            this.key = key;
            this.value = value;
        }

        public byte[] key() {
            return key;
        }

        public byte @Nullable [] value() {
            return value;
        }
    }

    /** The record that makes a transition durable. */
    public static Entry entry(TransactionMetadata to) {
        return new Entry(key(to.transactionalId()), value(to));
    }

    public static byte[] key(String transactionalId) {
        if (transactionalId.isEmpty()) {
            throw new IllegalArgumentException("empty transactional id");
        }
        return write(out -> {
            out.writeByte(KEY_VERSION);
            out.writeUTF(transactionalId);
        });
    }

    /** The value for a metadata; null (a tombstone) for Dead. */
    public static byte @Nullable [] value(TransactionMetadata txn) {
        if (txn.state() == TransactionState.DEAD) {
            return null;
        }
        if (!txn.state().isDurable()) {
            throw new IllegalArgumentException(txn.transactionalId() + ": state " + txn.state() + " is never written");
        }
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (TxnPartition tp : txn.partitions()) {
            byTopic.computeIfAbsent(tp.topic(), t -> new ArrayList<>()).add(tp.partition());
        }
        return write(out -> {
            out.writeByte(VALUE_VERSION);
            out.writeLong(txn.producerId());
            out.writeLong(txn.previousProducerId());
            out.writeLong(txn.nextProducerId());
            out.writeShort(txn.producerEpoch());
            out.writeShort(txn.lastProducerEpoch());
            out.writeInt(txn.txnTimeoutMs());
            out.writeByte(txn.state().id());
            out.writeLong(txn.txnStartTimestampMs());
            out.writeLong(txn.txnLastUpdateTimestampMs());
            out.writeInt(byTopic.size());
            for (Map.Entry<String, List<Integer>> topic : byTopic.entrySet()) {
                List<Integer> partitions = topic.getValue();
                partitions.sort(null);
                out.writeUTF(topic.getKey());
                out.writeInt(partitions.size());
                for (int partition : partitions) {
                    out.writeInt(partition);
                }
            }
        });
    }

    /**
     * The transactional id a key names.
     *
     * @throws CorruptTransactionRecordException if the bytes are not a key of this format
     */
    public static String readKey(byte[] key) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(key))) {
            byte version = in.readByte();
            if (version != KEY_VERSION) {
                throw new CorruptTransactionRecordException("transaction record key of unknown version " + version);
            }
            String transactionalId = in.readUTF();
            if (transactionalId.isEmpty()) {
                throw new CorruptTransactionRecordException("transaction record key with an empty transactional id");
            }
            requireEnd(in, "key of " + transactionalId);
            return transactionalId;
        } catch (IOException e) {
            throw new CorruptTransactionRecordException(
                    "transaction record key of " + key.length + " bytes cannot be read: " + e, e);
        }
    }

    /**
     * The metadata a value holds, for the transactional id of its key.
     *
     * @throws CorruptTransactionRecordException if the bytes are not a value of this format
     */
    public static TransactionMetadata readValue(String transactionalId, byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            byte version = in.readByte();
            if (version != VALUE_VERSION) {
                throw new CorruptTransactionRecordException(
                        "transaction record of " + transactionalId + " has unknown version " + version);
            }
            TransactionMetadata txn = readValueV0(transactionalId, in);
            requireEnd(in, "value of " + transactionalId);
            return txn;
        } catch (IOException e) {
            throw new CorruptTransactionRecordException(
                    "transaction record of " + transactionalId + " (" + value.length + " bytes) cannot be read: " + e,
                    e);
        } catch (CorruptTransactionRecordException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new CorruptTransactionRecordException(
                    "transaction record of " + transactionalId + " holds an invalid value: " + e.getMessage(), e);
        }
    }

    private static TransactionMetadata readValueV0(String transactionalId, DataInputStream in) throws IOException {
        long producerId = in.readLong();
        long previousProducerId = in.readLong();
        long nextProducerId = in.readLong();
        short epoch = in.readShort();
        short lastEpoch = in.readShort();
        int timeoutMs = in.readInt();
        TransactionState state = TransactionState.fromId(in.readByte());
        if (!state.isDurable()) {
            throw new CorruptTransactionRecordException(
                    "transaction record of " + transactionalId + " in state " + state + ", which is never written");
        }
        long startMs = in.readLong();
        long lastUpdateMs = in.readLong();
        Set<TxnPartition> partitions = readPartitions(transactionalId, in);
        return new TransactionMetadata(
                transactionalId,
                producerId,
                previousProducerId,
                nextProducerId,
                epoch,
                lastEpoch,
                timeoutMs,
                state,
                partitions,
                startMs,
                lastUpdateMs);
    }

    private static Set<TxnPartition> readPartitions(String transactionalId, DataInputStream in) throws IOException {
        // each topic takes at least 6 bytes (name length, partition count), each partition 4: a count that the
        // bytes left cannot hold is refused before anything is allocated for it
        int topics = readCount(transactionalId, in, 6);
        Set<TxnPartition> partitions = new HashSet<>();
        for (int t = 0; t < topics; t++) {
            String topic = in.readUTF();
            int count = readCount(transactionalId, in, 4);
            for (int p = 0; p < count; p++) {
                if (!partitions.add(new TxnPartition(topic, in.readInt()))) {
                    throw new CorruptTransactionRecordException(
                            "transaction record of " + transactionalId + " lists a partition of " + topic + " twice");
                }
            }
        }
        return partitions;
    }

    private static int readCount(String transactionalId, DataInputStream in, int minBytesEach) throws IOException {
        int count = in.readInt();
        if (count < 0 || (long) count * minBytesEach > in.available()) {
            throw new CorruptTransactionRecordException("transaction record of " + transactionalId + " has count "
                    + count + " with " + in.available() + " bytes left");
        }
        return count;
    }

    private static void requireEnd(DataInputStream in, String what) throws IOException {
        int left = in.available();
        if (left != 0) {
            throw new CorruptTransactionRecordException(
                    "transaction record " + what + " has " + left + " trailing bytes");
        }
    }

    private interface Writer {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] write(Writer writer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writer.write(out);
        } catch (IOException e) {
            // only writeUTF's refusal of a string longer than 65535 bytes in modified UTF-8
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
