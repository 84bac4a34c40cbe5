# swflow's image: `swflow start` by default (temporal-dev.yml); the Helm chart and deploy/compose run
# `node bin/swflow.js worker`, `adapters` and `gateway` from it as separate processes.
FROM node:20.19-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
# With TEMPORAL_ADDRESS set, `swflow start` starts no server of its own.
CMD ["npx", "swflow", "start"]
