# swflow's image: `swflow start` by default (temporal-dev.yml); the Helm chart and deploy/compose run
# `node bin/swflow.js worker`, `adapters` and `gateway` from it as separate processes.
FROM node:20.19-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
# The command's TypeScript compiled to JavaScript now (.cache/js), so containers (read-only ones too) start without tsx.
RUN node bin/compiled.js
# glibc's malloc held to 2 arenas: ~16 MB less resident per worker (bench/README.md, "What a worker costs").
ENV MALLOC_ARENA_MAX=2
# With TEMPORAL_ADDRESS set, `swflow start` starts no server of its own.
CMD ["npx", "swflow", "start"]
