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

# The mirror: fetch and commit on dc1; produce, create, read back on dc2 ('*' covers its offset map, __strait_sync).
acl dc1 strait-mirror --operation Read --operation DescribeConfigs "${topics[@]}"
acl dc1 strait-mirror --operation Read --group "$group"
acl dc2 strait-mirror --operation Write --operation Create --operation DescribeConfigs --operation Read "${topics[@]}"
# The lag monitor: topics and the mirror's committed offsets on dc1, the copies' provenance and configs on dc2.
acl dc1 strait-lag-monitor --operation Read "${topics[@]}"
acl dc1 strait-lag-monitor --operation Describe --group "$group"
acl dc2 strait-lag-monitor --operation Read --operation DescribeConfigs "${topics[@]}"
# The canary: probes into dc1, read back on dc2.
acl dc1 strait-canary --operation Write --operation Create --topic "$canary"
acl dc2 strait-canary --operation Read --topic "$canary"
echo "secure-acls: done"
