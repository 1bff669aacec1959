#!/usr/bin/env bash
# HEALTHCHECK of the Strait image, for every role (installed as /opt/strait/bin/healthcheck). The launcher writes
# the endpoint to probe to $STRAIT_RUN_DIR/health when a daemon starts:
#   http HOST PORT PATH   mirror (--metrics.port), lag monitor and canary (http.port): healthy on HTTP 200
#   tcp HOST PORT         broker: healthy when its listener accepts a connection
#   none                  the daemon's endpoint is turned off: nothing to probe, reported healthy
# Exit 0 healthy, 1 unhealthy (also while the file is not written yet: the start period covers that).
# Plain bash (/dev/tcp): the runtime image needs no curl or wget. A connect that hangs is cut by the
# HEALTHCHECK timeout; the answer is awaited at most STRAIT_HEALTH_TIMEOUT_S seconds (default 4).
set -uo pipefail

health_file="${STRAIT_RUN_DIR:-/tmp/strait}/health"
timeout_s="${STRAIT_HEALTH_TIMEOUT_S:-4}"
if [ ! -r "$health_file" ]; then
  echo "starting: $health_file not written yet"
  exit 1
fi
read -r kind host port path <"$health_file" || true

case "${kind:-}" in
  http)
    if ! { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
      echo "unhealthy: http://$host:$port$path refuses connections"
      exit 1
    fi
    printf 'GET %s HTTP/1.0\r\nHost: %s\r\nConnection: close\r\n\r\n' "$path" "$host" >&3
    IFS=$' \t\r' read -r -t "$timeout_s" proto code reason <&3 || true
    exec 3<&-
    if [ "${code:-}" = "200" ]; then
      echo "healthy: http://$host:$port$path ${proto:-} 200 ${reason:-}"
      exit 0
    fi
    echo "unhealthy: http://$host:$port$path answered ${proto:-nothing} ${code:-} ${reason:-}"
    exit 1
    ;;
  tcp)
    if { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null; then
      exec 3<&-
      echo "healthy: $host:$port accepts connections"
      exit 0
    fi
    echo "unhealthy: $host:$port does not accept connections"
    exit 1
    ;;
  none)
    echo "healthy: no endpoint to probe (turned off)"
    exit 0
    ;;
  *)
    echo "unhealthy: cannot read $health_file"
    exit 1
    ;;
esac
