#!/bin/sh
# temporalio/server's start, reduced to PostgreSQL: the config from the environment (the variables
# of that image's config template), then every service (frontend, history, matching, worker) in
# this one process. The schema must exist: deploy/compose's temporal-schema service makes it.
set -eu
case "${DB:-}" in
  postgres12 | postgres12_pgx) ;;
  *) echo "temporal: DB=${DB:-} is not supported by this image; set DB=postgres12 (PostgreSQL)" >&2; exit 1 ;;
esac
: "${POSTGRES_SEEDS:?temporal: set POSTGRES_SEEDS to the PostgreSQL host}"
: "${POSTGRES_USER:?temporal: set POSTGRES_USER}"
port="${DB_PORT:-5432}"
ip="$(getent hosts "$(hostname)" | awk '{print $1; exit}')"
bind="${BIND_ON_IP:-$ip}"
broadcast="${TEMPORAL_BROADCAST_ADDRESS:-$ip}"
shards="${NUM_HISTORY_SHARDS:-4}"
dynamic="${DYNAMIC_CONFIG_FILE_PATH:-/etc/temporal/config/dynamicconfig/docker.yaml}"
store() {
  cat <<YAML
      sql:
        pluginName: "$DB"
        databaseName: "$1"
        connectAddr: "$POSTGRES_SEEDS:$port"
        connectProtocol: tcp
        user: "$POSTGRES_USER"
        password: "${POSTGRES_PWD:-}"
        maxConns: 20
        maxIdleConns: 20
        maxConnLifetime: 1h
YAML
}
service() {
  printf '  %s:\n    rpc:\n      grpcPort: %s\n      membershipPort: %s\n      bindOnIP: %s\n' "$1" "$2" "$3" "$bind"
  [ -z "${4:-}" ] || printf '      httpPort: %s\n' "$4"
}
{
  printf 'log:\n  stdout: true\n  level: %s\n' "${LOG_LEVEL:-info}"
  printf 'persistence:\n  defaultStore: default\n  visibilityStore: visibility\n  numHistoryShards: %s\n  datastores:\n' "$shards"
  printf '    default:\n'; store "${DBNAME:-temporal}"
  printf '    visibility:\n'; store "${VISIBILITY_DBNAME:-temporal_visibility}"
  printf 'global:\n  membership:\n    maxJoinDuration: 30s\n    broadcastAddress: "%s"\n' "$broadcast"
  printf 'services:\n'
  service frontend 7233 6933 7243
  service history 7234 6934
  service matching 7235 6935
  service worker 7239 6939
  cat <<YAML
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: $broadcast:7233
dcRedirectionPolicy:
  policy: noop
publicClient:
  hostPort: $broadcast:7233
dynamicConfigClient:
  filepath: $dynamic
  pollInterval: 10s
YAML
} >/etc/temporal/config/docker.yaml
echo "temporal: persistence $DB on $POSTGRES_SEEDS:$port (POSTGRES_SEEDS, DB_PORT) as $POSTGRES_USER, databases ${DBNAME:-temporal} and ${VISIBILITY_DBNAME:-temporal_visibility}; frontend on $bind:7233"
exec temporal-server --root / --config /etc/temporal/config --env docker --allow-no-auth start
