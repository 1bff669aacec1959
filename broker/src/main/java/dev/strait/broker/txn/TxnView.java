package dev.strait.broker.txn;

import org.jspecify.annotations.Nullable;

/** DescribeTransactions for one id: NONE and the durable value, or the error (and no value). */
public record TxnView(TxnError error, @Nullable TransactionMetadata metadata) {}
