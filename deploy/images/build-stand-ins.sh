#!/usr/bin/env bash
# Builds, where no container registry can be pulled from, stand-ins for the public images
# deploy/compose runs (deploy/compose/local-images.yml selects them), all FROM the Debian base
# (debian-base.sh) and cached in the engine's image store:
#   localhost/swflow-postgres:trixie            for postgres:16.4 (Debian's PostgreSQL, 17 in trixie)
#   localhost/swflow-temporal-server:1.29.1     for temporalio/server:1.29.1 and temporalio/admin-tools:1.29.1
#   localhost/swflow-temporal-ui:2.42.1         for temporalio/ui:2.42.1
# The Temporal server, its SQL tool and the UI server are Go modules built here once (a few minutes
# each when not cached; the binaries are kept under $SWFLOW_CACHE, default .cache).
#
#   deploy/images/build-stand-ins.sh            # engine: docker (SWFLOW_ENGINE=podman for podman)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/deploy/images"
engine="${SWFLOW_ENGINE:-docker}"
cache="${SWFLOW_CACHE:-$root/.cache}"
server_version=v1.29.1
ui_version=v2.42.1
has() { "$engine" image inspect "$1" >/dev/null 2>&1; }
build() { echo "build-stand-ins.sh: building $1" >&2; "$engine" build -q "${@:2}" -t "$1" >/dev/null; }
strip() { objcopy --strip-all "$1" "$2" 2>/dev/null || cp "$1" "$2"; }

debian="$("$here/debian-base.sh" "$engine")"
ctx="$(mktemp -d)"; trap 'rm -rf "$ctx"' EXIT

if ! has localhost/swflow-postgres:trixie; then
  cp "$here/postgres/Dockerfile" "$here/postgres/entrypoint.sh" "$ctx/"
  build localhost/swflow-postgres:trixie --build-arg "DEBIAN=$debian" "$ctx"
  rm -rf "${ctx:?}"/*
fi

if ! has "localhost/swflow-temporal-server:${server_version#v}"; then
  bin="${TEMPORAL_SERVER_DIR:-$cache/temporal-server-$server_version}"
  if [ ! -x "$bin/temporal-server" ] || [ ! -x "$bin/temporal-sql-tool" ]; then
    echo "build-stand-ins.sh: building the Temporal server $server_version with Go (several minutes)..." >&2
    mkdir -p "$bin"
    (cd "$cache" && GOBIN="$bin" GOFLAGS=-buildvcs=false go install "go.temporal.io/server/cmd/server@$server_version" "go.temporal.io/server/cmd/tools/sql@$server_version")
    mv "$bin/server" "$bin/temporal-server"; mv "$bin/sql" "$bin/temporal-sql-tool"
  fi
  module="$(cd "$cache" && go mod download -json "go.temporal.io/server@$server_version" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')"
  cli="${TEMPORAL_CLI:-$(command -v temporal || echo "$cache/bin/temporal")}"
  if [ ! -x "$cli" ]; then
    echo "build-stand-ins.sh: building the Temporal CLI with Go (a few minutes)..." >&2
    GOBIN="$cache/bin" go install github.com/temporalio/cli/cmd/temporal@v1.5.1
    cli="$cache/bin/temporal"
  fi
  cp "$here/temporal-server/Dockerfile" "$here/temporal-server/entrypoint.sh" "$ctx/"
  strip "$cli" "$ctx/temporal"
  strip "$bin/temporal-server" "$ctx/temporal-server"
  strip "$bin/temporal-sql-tool" "$ctx/temporal-sql-tool"
  mkdir -p "$ctx/schema/postgresql"
  cp -r "$module/schema/postgresql/v12" "$ctx/schema/postgresql/"
  chmod -R u+w,a+rX "$ctx/schema"
  build "localhost/swflow-temporal-server:${server_version#v}" --build-arg "DEBIAN=$debian" "$ctx"
  rm -rf "${ctx:?}"/*
fi

if ! has "localhost/swflow-temporal-ui:${ui_version#v}"; then
  ui="$cache/compose/ui-server-$ui_version"
  if [ ! -x "$ui" ]; then
    echo "build-stand-ins.sh: building the Temporal UI server $ui_version with Go (a few minutes)..." >&2
    mkdir -p "$cache/compose/gobin"
    (cd "$cache" && GOBIN="$cache/compose/gobin" GOFLAGS=-buildvcs=false go install "github.com/temporalio/ui-server/v2/cmd/server@$ui_version")
    mv "$cache/compose/gobin/server" "$ui"
  fi
  module="$(cd "$cache" && go mod download -json "github.com/temporalio/ui-server/v2@$ui_version" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')"
  cp "$here/temporal-ui/Dockerfile" "$ctx/"
  cp "$module/config/docker.yaml" "$ctx/docker.yaml"
  strip "$ui" "$ctx/ui-server"
  chmod u+w "$ctx/docker.yaml"
  build "localhost/swflow-temporal-ui:${ui_version#v}" --build-arg "DEBIAN=$debian" "$ctx"
fi
echo "localhost/swflow-postgres:trixie localhost/swflow-temporal-server:${server_version#v} localhost/swflow-temporal-ui:${ui_version#v}"
