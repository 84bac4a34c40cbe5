# swflow's image. Its default command is `swflow start`: everything `npm start` runs, with the
# Temporal CLI's dev server inside unless TEMPORAL_ADDRESS names a server. The Helm chart and
# deploy/compose run `swflow worker`, `adapters` and `gateway` from it as separate processes.
#
#   docker build -t swflow .
#
# The bases are build arguments: by default the public images users pull. Where no registry is
# reachable, deploy/images/build.sh makes equivalents from Debian's packages and passes them here.
ARG BASE=node:24.22-bookworm-slim
ARG BUILD_BASE=node:24.22-bookworm-slim
# The Temporal CLI (its dev server for `swflow start`, and `temporal` for operators in the pod).
ARG TEMPORAL_CLI_IMAGE=temporalio/temporal:1.5.1

FROM ${TEMPORAL_CLI_IMAGE} AS temporal-cli

FROM ${BUILD_BASE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
# All dependencies first: TypeScript builds dist/ (the `swflow/adapter` SDK's JavaScript, which
# adapter modules mounted into the image import); the dev dependencies are pruned after.
RUN npm ci --no-audit --no-fund
# What the npm package ships (package.json "files"), nothing else: no tests, benchmarks or docs.
COPY bin ./bin
COPY src ./src
COPY adapters ./adapters
COPY workers ./workers
COPY examples ./examples
COPY config ./config
COPY vendor/jq/SOURCE.md vendor/jq/COPYING ./vendor/jq/
COPY README.md ./
RUN npm run build && npm prune --omit=dev --no-audit --no-fund && npm cache clean --force && rm tsconfig.json tsconfig.build.json
# Temporal's native core ships for five platforms (~140 MB); the image runs on one: keep its own
# (Linux glibc, this build's architecture), when it is there.
RUN cd node_modules/@temporalio/core-bridge/releases \
 && own="$(node -p '({ x64: "x86_64", arm64: "aarch64" })[process.arch]')-unknown-linux-gnu" \
 && if [ -d "$own" ]; then for d in *; do [ "$d" = "$own" ] || rm -rf "$d"; done; fi
# The command's TypeScript compiled to JavaScript now (.cache/js), so containers, read-only ones
# too, start without compiling.
RUN node bin/compiled.js
# The interpreter's workflow code bundled now (.cache/bundles, plain and traced), so a worker
# container is ready without webpack: a restart no longer waits seconds for the bundler.
RUN node bin/swflow.js bundle --all

FROM ${BASE}
WORKDIR /app
# /temporal: where the public image keeps it (its entrypoint).
COPY --from=temporal-cli /temporal /usr/local/bin/temporal
COPY --from=build /app /app
# The dev server's database (swflow start) and anything else swflow persists: a volume the
# unprivileged user owns.
# `swflow` resolves from anywhere (NODE_PATH), so adapter modules mounted into the container
# (`swflow worker --adapter /adapters/x.js`, the chart's adapters.modules) import `swflow/adapter`.
RUN mkdir -p /usr/local/lib/swflow/node_modules && ln -s /app /usr/local/lib/swflow/node_modules/swflow \
 && mkdir -p /data && chown 1000:1000 /data \
# uid 1000 needs a name: the Temporal dev server asks the user database for it at start ("user:
# unknown userid 1000" otherwise). The public node images call it `node`; other bases get `swflow`.
 && (getent passwd 1000 >/dev/null || echo 'swflow:x:1000:1000:swflow:/tmp:/usr/sbin/nologin' >> /etc/passwd) \
 && (getent group 1000 >/dev/null || echo 'swflow:x:1000:' >> /etc/group)
# MALLOC_ARENA_MAX: glibc's malloc held to 2 arenas, ~16 MB less resident per worker (bench/README.md,
# "What a worker costs").
ENV NODE_ENV=production SWFLOW_DATA=/data HOME=/tmp MALLOC_ARENA_MAX=2 NODE_PATH=/usr/local/lib/swflow/node_modules
# In a container, 127.0.0.1 is reachable from nowhere else: the dev server (`swflow start`), the
# gateway, the run page and the health endpoints listen on every interface, for published ports.
ENV SWFLOW_TEMPORAL_HOST=0.0.0.0 SWFLOW_GATEWAY_HOST=0.0.0.0 SWFLOW_UI_HOST=0.0.0.0 SWFLOW_HEALTH_HOST=0.0.0.0
VOLUME /data
# Not root: the uid the Helm chart runs as (runAsUser 1000), the official node images' `node` user.
USER 1000:1000
EXPOSE 7233 8233 8234 8090 8080 9464
ENTRYPOINT ["node", "/app/bin/swflow.js"]
CMD ["start"]
