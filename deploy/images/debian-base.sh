#!/usr/bin/env bash
# A Debian base image made here, from Debian's own packages, for machines with no container
# registry to pull from (this project's CI): debootstrap a minimal Debian into a folder, import it
# as an image. Every other image of the deployment tests is built FROM it (deploy/images/*).
#
#   deploy/images/debian-base.sh [engine]        # engine: docker (default) or podman
#
# Prints the image's name. Cached: an image already present is kept; the root file system's
# tarball is kept under $SWFLOW_CACHE (default .cache)/images so a wiped image store re-imports it
# in seconds. SWFLOW_DEBIAN_SUITE (trixie) and SWFLOW_DEBIAN_MIRROR pick the release and mirror.
set -euo pipefail
engine="${1:-docker}"
suite="${SWFLOW_DEBIAN_SUITE:-trixie}"
mirror="${SWFLOW_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
image="localhost/swflow-debian:${suite}"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cache="${SWFLOW_CACHE:-$root/.cache}/images"
tarball="$cache/debian-${suite}.tar"

if "$engine" image inspect "$image" >/dev/null 2>&1; then echo "$image"; exit 0; fi
if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || { echo "debian-base.sh: debootstrap is needed (apt-get install debootstrap)" >&2; exit 1; }
  [ "$(id -u)" = 0 ] || { echo "debian-base.sh: debootstrap needs root" >&2; exit 1; }
  mkdir -p "$cache"
  dir="$(mktemp -d "$cache/rootfs.XXXXXX")"
  trap 'rm -rf "$dir"' EXIT
  echo "debian-base.sh: debootstrap $suite from $mirror (about a minute)..." >&2
  debootstrap --variant=minbase --include=ca-certificates "$suite" "$dir" "$mirror" >"$cache/debootstrap.log" 2>&1 \
    || { echo "debian-base.sh: debootstrap failed; see $cache/debootstrap.log" >&2; tail -5 "$cache/debootstrap.log" >&2; exit 1; }
  # Image hygiene as in Debian's official images: no apt lists or caches, apt told not to keep them.
  rm -rf "$dir"/var/lib/apt/lists/* "$dir"/var/cache/apt/*.bin "$dir"/var/cache/apt/archives/*.deb
  printf 'APT::Install-Recommends "false";\nAPT::Install-Suggests "false";\n' >"$dir/etc/apt/apt.conf.d/90swflow-no-recommends"
  tar -C "$dir" --numeric-owner -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
fi
"$engine" import --change 'CMD ["bash"]' --change 'ENV LANG=C.UTF-8' "$tarball" "$image" >/dev/null
echo "$image"
