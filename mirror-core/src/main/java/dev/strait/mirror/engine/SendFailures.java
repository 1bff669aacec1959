package dev.strait.mirror.engine;

import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** Which send failures concern one record only, and what to tell the user about a failure. Stateless. */
final class SendFailures {
    /** The broker's INVALID_RECORD; its class sits outside the public packages the mirror may import. */
    private static final String INVALID_RECORD = "org.apache.kafka.common.InvalidRecordException";

    private SendFailures() {}

    /**
     * True for failures of the record itself: sending it again would fail again, and its neighbours are
     * fine. Everything else (timeouts, authorization, a fenced or closed producer, an unreachable target)
     * is a failure of the path, which would fail every record sent meanwhile.
     */
    static boolean isRecordLevel(Throwable cause) {
        return cause instanceof RecordTooLargeException
                || cause instanceof RecordBatchTooLargeException
                || INVALID_RECORD.equals(cause.getClass().getName())
                || cause instanceof CorruptRecordException
                || cause instanceof SerializationException
                || cause instanceof RecordRouter.HandlerFailedException;
    }

    /**
     * The broker's error behind a producer's own wrapper: once an idempotent producer's InitProducerId is refused
     * (no WRITE on any topic: ClusterAuthorizationException), its later sends fail with a bare KafkaException
     * ("Cannot execute transactional method because we are in an error state") whose cause is that refusal.
     */
    private static Throwable apiCause(Throwable failure) {
        Throwable t = failure;
        while (t instanceof org.apache.kafka.common.KafkaException
                && !(t instanceof org.apache.kafka.common.errors.ApiException)
                && t.getCause() != null
                && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    /** One line for the source refusing the consumer: which operation on which resource, and how to grant it. */
    static String sourceDenied(org.apache.kafka.common.errors.AuthorizationException denied) {
        String resource;
        String flag;
        if (denied instanceof GroupAuthorizationException group) {
            resource = "group " + group.groupId();
            flag = "--group " + group.groupId();
        } else {
            java.util.Set<String> topics = denied instanceof TopicAuthorizationException t
                    ? new java.util.TreeSet<>(t.unauthorizedTopics())
                    : java.util.Set.of();
            resource = topics.isEmpty() ? "a mirrored topic" : "topic " + String.join(", ", topics);
            flag = "--topic "
                    + (topics.isEmpty() ? "<topic>" : topics.iterator().next());
        }
        return "The source cluster denied the principal of --consumer.config READ on " + resource + " (" + denied
                + "): grant it (kafka-acls --bootstrap-server <source> --add --allow-principal User:<mirror> --operation "
                + "Read " + flag + "), then restart; nothing was committed past what the target acknowledged.";
    }

    static String advice(Throwable failure) {
        Throwable cause = apiCause(failure);
        if (cause instanceof TimeoutException || cause instanceof UnknownTopicOrPartitionException) {
            return "The target did not take the record in time (max.block.ms / delivery.timeout.ms of --producer.config): "
                    + "check that the target is reachable and that the target topic exists with that partition (it may "
                    + "have been deleted or shrunk), then restart; nothing past it was committed.";
        }
        if (cause instanceof TopicAuthorizationException denied) {
            String topics = denied.unauthorizedTopics().isEmpty()
                    ? "the target topic"
                    : "topic " + String.join(", ", new java.util.TreeSet<>(denied.unauthorizedTopics()));
            String example = denied.unauthorizedTopics().isEmpty()
                    ? "<topic>"
                    : new java.util.TreeSet<>(denied.unauthorizedTopics()).first();
            return "The target cluster denied the principal of --producer.config WRITE on " + topics + ": grant it "
                    + "(kafka-acls --bootstrap-server <target> --add --allow-principal User:<mirror> --operation Write "
                    + "--topic " + example + "), then restart.";
        }
        if (cause instanceof ClusterAuthorizationException) {
            return "The target cluster denied the principal of --producer.config IDEMPOTENT_WRITE on the cluster: grant "
                    + "it WRITE on its target topics (which implies IDEMPOTENT_WRITE) or IDEMPOTENT_WRITE on the cluster, "
                    + "then restart.";
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
