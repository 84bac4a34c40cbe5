# swflow's workers (interpreter + REST adapter; the event gateway as it lands) for temporal-dev.yml.
FROM node:20.19-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev
COPY . .
# With TEMPORAL_ADDRESS set, `swflow start` starts no server of its own.
CMD ["npx", "swflow", "start"]
