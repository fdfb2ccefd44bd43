# syntax=docker/dockerfile:1
# NCM Hub image: compiled with dev dependencies in a build stage, shipped with runtime dependencies only, as a
# non-root user, with the SQLite database on the /data volume and a HEALTHCHECK on the readiness probe (/readyz).

# A supported Node LTS line: 24 (security fixes until April 2028; Node 20 reached end of life in April 2026). The code needs Node >= 20.19
# (package.json `engines`); build with `--build-arg NODE_IMAGE=node:22-bookworm-slim` to stay on the previous LTS.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# Dev dependencies too: the build needs TypeScript (and wabt for the WebAssembly kernels).
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
# build/wasm exists even when the build writes nothing there, so the COPY below never fails.
RUN npm run build && mkdir -p build/wasm
RUN npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8000 \
    DATA_DIR=/data \
    TRUST_PROXY=true
WORKDIR /app
# The code stays owned by root (read-only for the service); only /data is writable by the `node` user.
RUN mkdir -p /data && chown node:node /data
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/src/store/migrations ./src/store/migrations
COPY --from=build /app/build/wasm ./build/wasm
# The deployment description itself, so the go-live report inside the container sees what it was deployed with.
COPY docker-compose.yml Dockerfile requirements.txt ./
COPY nginx ./nginx
COPY systemd ./systemd
COPY scripts/smoke.py scripts/client_example.py scripts/probe.mjs ./scripts/
USER node
VOLUME ["/data"]
EXPOSE 8000
# Healthy = ready: the store, the mill and the disk answer (src/plugins/probes.ts); the start report must have run.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "scripts/probe.mjs", "/readyz"]
STOPSIGNAL SIGTERM
# Not `npm start`: its prestart hook compiles, and the compiler is not in this image.
CMD ["node", "dist/src/server.js"]
