#!/usr/bin/env bash
# HEALTHCHECK of the Strait image, for every role (installed as /opt/strait/bin/healthcheck).
#
#   healthcheck                     probes the endpoint the launcher wrote to $STRAIT_RUN_DIR/health at start
#   healthcheck KIND HOST PORT ...  probes the endpoint given (compose files use it for Apache Kafka containers,
#                                   with this script mounted read-only)
#
# Kinds:
#   http HOST PORT PATH   mirror (--metrics.port), lag monitor and canary (http.port): healthy on HTTP 200
#   kafka HOST PORT       a Kafka broker (the companion broker, or Apache Kafka): healthy when it answers an
#                         ApiVersions request without error, so a broker that accepts connections but does not
#                         serve requests is unhealthy
#   kafka-tls HOST PORT   the same inside a TLS session (openssl s_client), for an SSL or SASL_SSL listener (SASL
#                         listeners answer ApiVersions before authentication); the certificate is not verified
#   tcp HOST PORT         healthy when the port accepts a connection
#   none                  the daemon's endpoint is turned off: nothing to probe, reported healthy
#   unparsable            the launcher could not read the broker's listeners: unhealthy
# Exit 0 healthy, 1 unhealthy (also while the file is not written yet: the start period covers that).
# Plain bash (/dev/tcp) and coreutils: the image needs no curl, wget or Kafka tools. A connect that hangs is cut by
# the HEALTHCHECK timeout; an answer is awaited at most STRAIT_HEALTH_TIMEOUT_S seconds (default 4).
set -uo pipefail

timeout_s="${STRAIT_HEALTH_TIMEOUT_S:-4}"

probe_http() {
  local host="$1" port="$2" path="$3"
  if ! { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
    echo "unhealthy: http://$host:$port$path refuses connections"
    return 1
  fi
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$host" >&3
  local proto code reason
  IFS=$' \t\r' read -r -t "$timeout_s" proto code reason <&3 || true
  exec 3<&-
  if [ "${code:-}" = "200" ]; then
    echo "healthy: http://$host:$port$path ${proto:-} 200 ${reason:-}"
    return 0
  fi
  echo "unhealthy: http://$host:$port$path answered ${proto:-nothing} ${code:-} ${reason:-}"
  return 1
}

# ApiVersions v0 (api key 18), correlation id 1, null client id: a 10-byte request every Kafka broker answers. The
# answer starts with its length (4 bytes), the correlation id (4) and the error code (2).
probe_kafka() {
  local host="$1" port="$2"
  if ! { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
    echo "unhealthy: broker $host:$port refuses connections"
    return 1
  fi
  printf '\x00\x00\x00\x0a\x00\x12\x00\x00\x00\x00\x00\x01\xff\xff' >&3
  local reply
  reply="$(timeout "$timeout_s" head -c 10 <&3 | od -An -tx1 | tr -d ' \n')"
  exec 3<&-
  case "$reply" in
    ????????000000010000)
      echo "healthy: broker $host:$port answers ApiVersions"
      return 0
      ;;
    ????????00000001????)
      echo "unhealthy: broker $host:$port answers ApiVersions with error code 0x${reply:16:4}"
      return 1
      ;;
    *)
      echo "unhealthy: broker $host:$port accepts connections but gave no ApiVersions answer within ${timeout_s} s"
      return 1
      ;;
  esac
}

probe_kafka_tls() {
  local host="$1" port="$2" reply
  reply="$(printf '\x00\x00\x00\x0a\x00\x12\x00\x00\x00\x00\x00\x01\xff\xff' |
    timeout "$timeout_s" openssl s_client -quiet -connect "$host:$port" 2>/dev/null |
    head -c 10 | od -An -tx1 | tr -d ' \n')"
  case "$reply" in
    ????????000000010000)
      echo "healthy: broker $host:$port answers ApiVersions over TLS"
      return 0
      ;;
    ????????00000001????)
      echo "unhealthy: broker $host:$port answers ApiVersions over TLS with error code 0x${reply:16:4}"
      return 1
      ;;
    *)
      echo "unhealthy: broker $host:$port gave no ApiVersions answer over TLS within ${timeout_s} s"
      return 1
      ;;
  esac
}

probe_tcp() {
  local host="$1" port="$2"
  if { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
    exec 3<&-
    echo "healthy: $host:$port accepts connections"
    return 0
  fi
  echo "unhealthy: $host:$port does not accept connections"
  return 1
}

if [ "$#" -gt 0 ]; then
  kind="$1" host="${2:-}" port="${3:-}" path="${4:-}"
else
  health_file="${STRAIT_RUN_DIR:-/tmp/strait}/health"
  if [ ! -r "$health_file" ]; then
    echo "starting: $health_file not written yet"
    exit 1
  fi
  read -r kind host port path <"$health_file" || true
fi

case "${kind:-}" in
  http) probe_http "$host" "$port" "$path" ;;
  kafka) probe_kafka "$host" "$port" ;;
  kafka-tls) probe_kafka_tls "$host" "$port" ;;
  tcp) probe_tcp "$host" "$port" ;;
  none)
    echo "healthy: no endpoint to probe (turned off)"
    exit 0
    ;;
  unparsable)
    echo "unhealthy: the launcher could not read the broker's listeners (see the container's log)"
    exit 1
    ;;
  *)
    echo "unhealthy: unknown probe '${kind:-}' (expected http, kafka, kafka-tls, tcp or none)"
    exit 1
    ;;
esac
