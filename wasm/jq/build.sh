#!/usr/bin/env bash
# Builds wasm/jq/jq.wasm (jq 1.8.2 from vendor/jq + api.c, a wasm32-wasi reactor) and its
# embedding for the workflow sandbox, src/expr/jq-binary.ts. Byte-reproducible: same sources,
# same Debian toolchain -> same bytes.
#
#   apt-get install -y clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32
#   wasm/jq/build.sh            # rebuild both files in place
#   wasm/jq/build.sh --check    # rebuild into a temporary folder, fail if the bytes differ
#
# No configure step: config.h holds what configure would find in wasi-libc; missing.c and
# include/pthread.h add the little jq needs that wasi-libc lacks. Compiles on all cores.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
JQ="$ROOT/vendor/jq"
ONIG="$JQ/vendor/oniguruma/src"
CC="${CC:-clang-14}"
CHECK=0
[ "${1:-}" = "--check" ] && CHECK=1

command -v "$CC" >/dev/null || { echo "build.sh: $CC not found (apt-get install -y clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32)" >&2; exit 2; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/obj" "$WORK/src"

# jq's Makefile rule for the builtins (builtin.jq as a C array of octal byte values).
od -v -A n -t o1 -- "$JQ/src/builtin.jq" |
  sed -e 's/$/ /' -e 's/\([0123456789]\) /\1, /g' -e 's/ $//' -e 's/ 0/  0/g' -e 's/ \([123456789]\)/ 0\1/g' \
  > "$WORK/src/builtin.inc"

# Source paths relative to the repository root (object names derive from them).
JQ_SOURCES="builtin bytecode compile execute jv jv_alloc jv_aux jv_dtoa jv_dtoa_tsd jv_file jv_parse jv_print jv_unicode lexer linker locfile parser util"
ONIG_SOURCES="ascii regcomp regenc regerror regexec regext regparse regsyntax regtrav regversion st unicode unicode_fold1_key unicode_fold2_key unicode_fold3_key unicode_unfold_key utf8"
{
  for f in $JQ_SOURCES; do echo "vendor/jq/src/$f.c"; done
  echo "vendor/jq/vendor/decNumber/decContext.c"
  echo "vendor/jq/vendor/decNumber/decNumber.c"
  for f in $ONIG_SOURCES; do echo "vendor/jq/vendor/oniguruma/src/$f.c"; done
  echo "wasm/jq/missing.c"
  echo "wasm/jq/api.c"
} | LC_ALL=C sort > "$WORK/sources"
mapfile -t OBJECTS < <(sed -e 's#[/.]#_#g' -e "s#^#$WORK/obj/#" -e 's#$#.o#' "$WORK/sources")

# -ffile-prefix-map keeps checkout paths (assert messages use __FILE__) out of the binary.
CFLAGS=(
  --target=wasm32-wasi -mexec-model=reactor -O2
  -ffile-prefix-map="$ROOT"=. -ffile-prefix-map="$WORK"=build
  -include "$HERE/config.h" -I"$HERE/include" -I"$HERE" -I"$WORK" -I"$JQ/src" -I"$JQ/vendor" -I"$ONIG"
  -D_GNU_SOURCE -D_WASI_EMULATED_SIGNAL -D_WASI_EMULATED_GETPID -Wno-everything
)
printf '"%s"\n' "${CFLAGS[@]}" > "$WORK/cflags" # a clang response file: paths may hold spaces
cd "$ROOT"
export CC WORK
tr '\n' '\0' < "$WORK/sources" | xargs -0 -n 1 -P "$(nproc)" bash -c \
  '"$CC" @"$WORK/cflags" -c "$1" -o "$WORK/obj/$(echo "$1" | sed "s#[/.]#_#g").o"' _

# Stack first in linear memory: an overflow then leaves the memory (a trap) instead of
# silently overwriting jq's data. 32 MiB: jq passes jv values by copy, so its recursion (up to
# 10,000 levels of nesting, jq's own limit) needs more than a native 8 MiB; untouched stack
# pages cost no resident memory.
OUT="$WORK/jq.wasm"
"$CC" --target=wasm32-wasi -mexec-model=reactor -O2 -fuse-ld=lld \
  -Wl,--stack-first -Wl,-z,stack-size=33554432 -Wl,--gc-sections -Wl,--strip-all \
  -o "$OUT" "${OBJECTS[@]}" \
  -lwasi-emulated-signal -lwasi-emulated-getpid -lm

node "$HERE/embed.js" "$OUT" "$WORK/jq-binary.ts"

if [ "$CHECK" = 1 ]; then
  status=0
  cmp "$OUT" "$HERE/jq.wasm" || { echo "build.sh --check: wasm/jq/jq.wasm differs from a fresh build" >&2; status=1; }
  cmp "$WORK/jq-binary.ts" "$ROOT/src/expr/jq-binary.ts" || { echo "build.sh --check: src/expr/jq-binary.ts differs from a fresh build" >&2; status=1; }
  [ "$status" = 0 ] && echo "build.sh --check: jq.wasm and src/expr/jq-binary.ts are reproducible ($(sha256sum "$OUT" | cut -c1-16))"
  exit "$status"
fi
cp "$OUT" "$HERE/jq.wasm"
cp "$WORK/jq-binary.ts" "$ROOT/src/expr/jq-binary.ts"
echo "wasm/jq/jq.wasm: $(wc -c < "$HERE/jq.wasm") bytes, sha256 $(sha256sum "$HERE/jq.wasm" | cut -d' ' -f1)"
