package dev.strait.mirror.engine;

import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Which send failures concern one record only, and what to tell the user about a failure. Stateless. */
final class SendFailures {
    /** The broker's INVALID_RECORD; its class sits outside the public packages the mirror may import. */
    private static final String INVALID_RECORD = "org.apache.kafka.common.InvalidRecordException";

    private SendFailures() {
    }

    /**
     * True for failures of the record itself: sending it again would fail again, and its neighbours are
     * fine. Everything else (timeouts, authorization, a fenced or closed producer, an unreachable target)
     * is a failure of the path, which would fail every record sent meanwhile.
     */
    static boolean isRecordLevel(Throwable cause) {
        return cause instanceof RecordTooLargeException || cause instanceof RecordBatchTooLargeException
            || INVALID_RECORD.equals(cause.getClass().getName()) || cause instanceof CorruptRecordException
            || cause instanceof SerializationException || cause instanceof RecordRouter.HandlerFailedException;
    }

    static String advice(Throwable cause) {
        if (cause instanceof TimeoutException || cause instanceof UnknownTopicOrPartitionException) {
            return "The target did not take the record in time (max.block.ms / delivery.timeout.ms of --producer.config): "
                + "check that the target is reachable and that the target topic exists with that partition (it may "
                + "have been deleted or shrunk), then restart; nothing past it was committed.";
        }
        if (cause instanceof AuthorizationException) {
            return "The target refused the mirror's principal: grant it WRITE (and DESCRIBE) on the target topic, then restart.";
        }
        if (isRecordLevel(cause)) {
            return "Fix the cause (e.g. the target topic's max.message.bytes) or run with --abort.on.send.failure=false "
                + "to skip such records.";
        }
        return "Fix the cause and restart; nothing past it was committed.";
    }
}
