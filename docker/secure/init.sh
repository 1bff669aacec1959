#!/usr/bin/env bash
# The secured two-datacenter stack's init step (docker/compose.two-dc.secure.yml, service secure-init): makes, once,
# in the secrets volume (/etc/strait/secrets), a CA and the brokers' certificate (openssl; the trust store with
# keytool), a random password for the stores and for each SCRAM user (broker, admin, strait-mirror,
# strait-lag-monitor, strait-canary), the brokers' security settings and each tool's client settings. Nothing here
# is committed: `up` makes them on the first start and keeps them (the brokers' volumes hold the SCRAM users made
# with these passwords); `down -v` removes them with the volumes, so the next `up` makes new ones.
#
# Runs as root (a new named volume is root's) and hands every file to the image's user (10001), mode 0600.
# Settings: SECRETS_UID (10001), CERT_DAYS (365), CERT_HOSTS (extra names or addresses the brokers' certificate
# must hold, comma-separated; 127.0.0.1 and localhost are always in it), DC1_BOOTSTRAP, DC2_BOOTSTRAP (for the
# admin client files).
set -euo pipefail

dir=/etc/strait/secrets
uid="${SECRETS_UID:-10001}"
days="${CERT_DAYS:-365}"

if [ -f "$dir/ready" ]; then
  echo "secure-init: the secrets in $dir exist (made $(cat "$dir/ready")); kept"
  exit 0
fi
umask 077
# A run that died halfway leaves no ready marker: start over.
find "$dir" -mindepth 1 -delete

password() { head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n'; }
store="$(password)"
declare -A pw
for user in broker admin strait-mirror strait-lag-monitor strait-canary; do
  pw[$user]="$(password)"
done

san="DNS:localhost,IP:127.0.0.1"
IFS=',' read -r -a extra <<<"${CERT_HOSTS:-}"
for host in "${extra[@]}"; do
  host="${host// /}"
  [ -z "$host" ] && continue
  if [[ "$host" =~ ^[0-9.]+$ || "$host" == *:* ]]; then entry="IP:$host"; else entry="DNS:$host"; fi
  [[ ",$san," == *",$entry,"* ]] || san="$san,$entry"
done

cd "$dir"
openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem \
  -days "$days" -subj "/O=Strait Compose/CN=Strait Compose CA" \
  -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
# One certificate for every broker of both clusters (CN=broker: the principal of the controller wire's mutual TLS).
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout broker.key -out broker.csr \
  -subj "/O=Strait Compose/CN=broker" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=critical,CA:false\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth,clientAuth\n' \
  "$san" >broker.ext
openssl x509 -req -in broker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out broker.pem -days "$days" \
  -extfile broker.ext 2>/dev/null
STORE_PASSWORD="$store" openssl pkcs12 -export -in broker.pem -inkey broker.key -certfile ca.pem -name broker \
  -out broker.p12 -passout env:STORE_PASSWORD
STORE_PASSWORD="$store" keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.p12 \
  -storetype PKCS12 -storepass:env STORE_PASSWORD >/dev/null 2>&1
# The CA signs nothing more: its key goes (a new CA comes with `down -v`).
rm -f broker.csr broker.ext ca.srl broker.key ca.key

jaas() { printf 'org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";' "$1" "${pw[$1]}"; }
trust() {
  printf '%sssl.truststore.location=%s/truststore.p12\n%sssl.truststore.type=PKCS12\n%sssl.truststore.password=%s\n' \
    "$1" "$dir" "$1" "$1" "$store"
}
client() { # prefix user
  printf '%ssecurity.protocol=SASL_SSL\n%ssasl.mechanism=SCRAM-SHA-512\n%ssasl.jaas.config=%s\n' "$1" "$1" "$1" "$(jaas "$2")"
  trust "$1"
}

{
  echo "# The companion brokers' TLS, SASL and authorization settings (the compose file sets the listeners)."
  printf 'ssl.keystore.location=%s/broker.p12\nssl.keystore.type=PKCS12\nssl.keystore.password=%s\nssl.key.password=%s\n' \
    "$dir" "$store" "$store"
  trust ""
  echo "sasl.enabled.mechanisms=SCRAM-SHA-512"
  echo "sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512"
  echo "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=$(jaas broker)"
  creds=""
  for user in broker admin strait-mirror strait-lag-monitor strait-canary; do
    creds="$creds${creds:+;}SCRAM-SHA-512=[name=$user,password=${pw[$user]}]"
  done
  echo "strait.bootstrap.scram.credentials=$creds"
  echo "listener.name.controller.ssl.client.auth=required"
  echo 'listener.name.controller.ssl.principal.mapping.rules=RULE:^CN=([^,]*),.*$/$1/,DEFAULT'
  echo "authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer"
  echo "super.users=User:broker;User:admin"
  echo "allow.everyone.if.no.acl.found=false"
} >broker.properties

client "" strait-mirror >mirror-source.properties
client "" strait-mirror >mirror-target.properties
{ client source. strait-lag-monitor; client target. strait-lag-monitor; } >lag-monitor.properties
{ client source. strait-canary; client target. strait-canary; } >canary.properties
{ echo "bootstrap.servers=${DC1_BOOTSTRAP:-}"; client "" admin; } >admin-dc1.properties
{ echo "bootstrap.servers=${DC2_BOOTSTRAP:-}"; client "" admin; } >admin-dc2.properties

date -u +%FT%TZ >ready
chown -R "$uid:$uid" "$dir"
chmod 0700 "$dir"
chmod 0600 "$dir"/*
# The CA's certificate is public: the host may copy it out to trust the brokers (docker cp, or `cat`).
chmod 0644 ca.pem truststore.p12
echo "secure-init: made a CA (valid $days days), the brokers' certificate ($san), 5 SCRAM users' passwords and the" \
  "client settings in $dir (passwords are in the files only)"
