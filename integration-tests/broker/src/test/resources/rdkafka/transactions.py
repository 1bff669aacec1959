#!/usr/bin/env python3
"""Transactions with librdkafka (Debian's python3-confluent-kafka), run by LibrdkafkaTransactionsIT.

A transactional producer runs a fixed sequence: TRANSACTIONS transactions of RECORDS records each, record i of
transaction t has the value "t<t>-<i>" and goes to partition i % PARTITIONS; every odd transaction is flushed and
then aborted, every even one committed. Then a read_committed and a read_uncommitted consumer each read every
partition from the beginning to its end (partition EOF) and the values they saw are printed as one JSON object on
stdout:

  {"libversion": "...", "committed": [t, ...], "aborted": [t, ...],
   "read_committed": {"0": ["t0-0", ...], ...}, "read_uncommitted": {...}}

Every step is bounded in count and in time. Any error (a librdkafka error, a failed delivery, a timeout) is printed
on stderr and the script exits with a non-zero code.
"""

import argparse
import json
import sys
import time

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition, libversion

TXN_TIMEOUT_S = 30.0
POLL_S = 0.2


def fail(message):
    print("transactions.py: " + message, file=sys.stderr, flush=True)
    sys.exit(1)


def on_error(err):
    # librdkafka reports transient trouble here too (a broker not yet reachable); only a fatal one ends the run.
    print("transactions.py: librdkafka error: %s" % err, file=sys.stderr, flush=True)
    if err.fatal():
        fail("fatal librdkafka error: %s" % err)


def produce(args):
    delivery_errors = []

    def on_delivery(err, msg):
        if err is not None:
            delivery_errors.append("%s [%s]: %s" % (msg.topic(), msg.partition(), err))

    producer = Producer({
        "bootstrap.servers": args.bootstrap,
        "transactional.id": args.transactional_id,
        "transaction.timeout.ms": 60000,
        "message.timeout.ms": 60000,
        "error_cb": on_error,
    })
    committed, aborted = [], []
    try:
        producer.init_transactions(TXN_TIMEOUT_S)
        for txn in range(args.transactions):
            producer.begin_transaction()
            for i in range(args.records):
                producer.produce(args.topic, value=("t%d-%d" % (txn, i)).encode(), key=b"k",
                                 partition=i % args.partitions, on_delivery=on_delivery)
                producer.poll(0)
            if txn % 2 == 1:
                # The records reach the log before the abort, so that read_uncommitted sees them.
                left = producer.flush(TXN_TIMEOUT_S)
                if left:
                    fail("transaction %d: %d records not delivered within %.0f s" % (txn, left, TXN_TIMEOUT_S))
                producer.abort_transaction(TXN_TIMEOUT_S)
                aborted.append(txn)
            else:
                producer.commit_transaction(TXN_TIMEOUT_S)
                committed.append(txn)
            if delivery_errors:
                fail("transaction %d: deliveries failed: %s" % (txn, "; ".join(delivery_errors)))
    except KafkaException as e:
        err = e.args[0]
        fail("producer: %s (code %s, retriable %s, fatal %s, txn_requires_abort %s)" % (
            err, err.code(), err.retriable(), err.fatal(), err.txn_requires_abort()))
    return committed, aborted


def consume(args, isolation):
    consumer = Consumer({
        "bootstrap.servers": args.bootstrap,
        "group.id": "rdkafka-transactions-" + isolation,
        "isolation.level": isolation,
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "error_cb": on_error,
    })
    values = {str(p): [] for p in range(args.partitions)}
    at_end = set()
    try:
        consumer.assign([TopicPartition(args.topic, p, -2) for p in range(args.partitions)])  # -2: beginning
        deadline = time.monotonic() + args.read_timeout
        while len(at_end) < args.partitions:
            if time.monotonic() > deadline:
                fail("%s: partitions %s not read to their end within %.0f s (read so far: %s)" % (
                    isolation, sorted(set(range(args.partitions)) - at_end), args.read_timeout, values))
            msg = consumer.poll(POLL_S)
            if msg is None:
                continue
            if msg.error() is not None:
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    at_end.add(msg.partition())
                    continue
                fail("%s consumer: %s" % (isolation, msg.error()))
            at_end.discard(msg.partition())
            values[str(msg.partition())].append(msg.value().decode())
    finally:
        consumer.close()
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bootstrap")
    parser.add_argument("topic")
    parser.add_argument("transactional_id")
    parser.add_argument("--partitions", type=int, default=1)
    parser.add_argument("--transactions", type=int, default=5)
    parser.add_argument("--records", type=int, default=10)
    parser.add_argument("--read-timeout", type=float, default=60.0)
    args = parser.parse_args()
    if not (1 <= args.partitions <= 100 and 1 <= args.transactions <= 100 and 1 <= args.records <= 1000):
        fail("out of bounds: partitions 1-100, transactions 1-100, records 1-1000")
    committed, aborted = produce(args)
    result = {
        "libversion": libversion()[0],
        "committed": committed,
        "aborted": aborted,
        "read_committed": consume(args, "read_committed"),
        "read_uncommitted": consume(args, "read_uncommitted"),
    }
    print(json.dumps(result, sort_keys=True), flush=True)


if __name__ == "__main__":
    main()
