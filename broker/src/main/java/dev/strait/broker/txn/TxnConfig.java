package dev.strait.broker.txn;

/**
 * The coordinator's settings, with Kafka's names and defaults.
 *
 * @param maxTransactionTimeoutMs {@code transaction.max.timeout.ms}: the longest timeout a producer may ask for
 * @param transactionalIdExpirationMs {@code transactional.id.expiration.ms}: how long an idle transactional id
 *     (no transaction in progress) is kept
 * @param offsetsTopic the group coordinator's topic, whose partition AddOffsetsToTxn adds
 */
public record TxnConfig(int maxTransactionTimeoutMs, long transactionalIdExpirationMs, String offsetsTopic) {

    public static final TxnConfig DEFAULTS = new TxnConfig(900_000, 604_800_000L, "__consumer_offsets");

    public TxnConfig {
        if (maxTransactionTimeoutMs <= 0 || transactionalIdExpirationMs <= 0 || offsetsTopic.isEmpty()) {
            throw new IllegalArgumentException("invalid transaction coordinator settings: transaction.max.timeout.ms="
                    + maxTransactionTimeoutMs + ", transactional.id.expiration.ms=" + transactionalIdExpirationMs
                    + ", offsets topic '" + offsetsTopic + "'");
        }
    }
}
