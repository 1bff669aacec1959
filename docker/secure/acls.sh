#!/usr/bin/env bash
# The secured two-datacenter stack's ACLs (docker/compose.two-dc.secure.yml, service secure-acls), made as the admin
# with Kafka's own tool once both clusters are healthy: each tool's principal gets exactly what docs/operating.md
# lists for it, on every topic ('*': the stack mirrors every topic but internal ones; narrow these to your topics,
# literal or --resource-pattern-type prefixed, when MIRROR_TOPICS is narrower), the mirror's group MIRROR_GROUP and
# the canary's topic CANARY_TOPIC. Adding an ACL that exists is a no-op, so every `up` runs it again.
set -euo pipefail

secrets=/etc/strait/secrets
group="${MIRROR_GROUP:-dc1-to-dc2}"
canary="${CANARY_TOPIC:-strait-canary}"
topics=(--topic '*')
acl_tool="${KAFKA_ACLS:-/opt/kafka/bin/kafka-run-class.sh org.apache.kafka.tools.AclCommand}"

acl() { # cluster principal args...
  local cluster="$1" principal="$2"
  shift 2
  # shellcheck disable=SC2086
  $acl_tool --bootstrap-server "$(sed -n 's/^bootstrap.servers=//p' "$secrets/admin-$cluster.properties")" \
    --command-config "$secrets/admin-$cluster.properties" --add --allow-principal "User:$principal" "$@" >/dev/null
  echo "secure-acls: $cluster User:$principal $*"
}

# dc1 and dc2 at once (each line is a JVM of Kafka's tool); either failing fails the step.
dc1() {
  # The mirror fetches and commits; the lag monitor reads the topics and the mirror's committed offsets; the
  # canary produces its probes.
  acl dc1 strait-mirror --operation Read --operation DescribeConfigs "${topics[@]}"
  acl dc1 strait-mirror --operation Read --group "$group"
  acl dc1 strait-lag-monitor --operation Read "${topics[@]}"
  acl dc1 strait-lag-monitor --operation Describe --group "$group"
  acl dc1 strait-canary --operation Write --operation Create --topic "$canary"
}
dc2() {
  # The mirror produces, creates and reads back ('*' covers its offset map, __strait_sync); the lag monitor reads
  # the copies' provenance and configs; the canary reads its probes.
  acl dc2 strait-mirror --operation Write --operation Create --operation DescribeConfigs --operation Read "${topics[@]}"
  acl dc2 strait-lag-monitor --operation Read --operation DescribeConfigs "${topics[@]}"
  acl dc2 strait-canary --operation Read --topic "$canary"
}
dc1 &
first=$!
dc2 &
second=$!
wait "$first"
wait "$second"
echo "secure-acls: done"
