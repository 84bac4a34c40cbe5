#!/bin/sh
# The official postgres image's start, reduced to what deploy/compose uses: on the first start
# (no PG_VERSION in $PGDATA) initdb with POSTGRES_USER as superuser and POSTGRES_PASSWORD
# (required, as there), password auth over the network, POSTGRES_DB created; then the server as
# the postgres user, listening on every interface.
set -eu
if [ "${1:-}" != postgres ]; then exec "$@"; fi
shift
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" postgres "$@"
fi
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  if [ -z "${POSTGRES_PASSWORD:-}" ]; then
    echo "postgres: POSTGRES_PASSWORD is not set; the database needs a password for its superuser \"$user\" (POSTGRES_USER)" >&2
    exit 1
  fi
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$user" --pwfile="$pwfile" -E UTF8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\"" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgres: initialised $PGDATA (superuser $user, database $db)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
