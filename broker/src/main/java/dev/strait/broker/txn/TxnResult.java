package dev.strait.broker.txn;

/**
 * The outcome of a request to {@link TransactionCoordinatorCore}: refused at once, answered at once with nothing to
 * write, or a transition to make durable before the answer ({@link TxnTransition#reply()}) is sent.
 */
public sealed interface TxnResult permits TxnResult.Refused, TxnResult.Answered, TxnResult.Write {

    /** Nothing changes; the requester is told {@code error}. */
    record Refused(TxnError error) implements TxnResult {}

    /** Nothing to write (a retry of something already done): the requester is told {@code reply} now. */
    record Answered(TxnReply reply) implements TxnResult {}

    /** Append the transition's record; once durable, {@link TransactionCoordinatorCore#apply} it and reply. */
    record Write(TxnTransition transition) implements TxnResult {}

    static TxnResult refuse(TxnError error) {
        return new Refused(error);
    }
}
