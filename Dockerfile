# syntax=docker/dockerfile:1
# The jtrace production image: the compiled server and CLI on node:20-slim. PostgreSQL 15+ runs
# elsewhere and is named by DATABASE_URL (the embedded database is for development only).
#
#   docker build --build-arg SERVICE_BUILD_VERSION=0.4.0 \
#                --build-arg SERVICE_BUILD_COMMIT="$(git rev-parse --short HEAD)" -t jtrace:0.4.0 .
#   docker run --rm -e DATABASE_URL=... -e ENCRYPTION_KEY=... jtrace:0.4.0 jtrace migrate
#   docker run -d -p 8080:8080 -e DATABASE_URL=... -e ADMIN_TOKEN=... -e ENCRYPTION_KEY=... jtrace:0.4.0
ARG NODE_IMAGE=node:20-slim

# Compile: every dependency (TypeScript included), then `npm run build` with the build
# arguments as its environment, so /ready reports them with source `build`.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The SDK is an npm workspace of the root: npm ci needs its manifest (not its sources).
COPY packages/node/package.json ./packages/node/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# The web interface: `npm run build` makes its static files, which the server finds at
# ../web/dist from dist/main.js.
COPY web ./web
# Declared after the sources are copied so a new version does not invalidate the npm ci layer.
ARG SERVICE_BUILD_VERSION=""
ARG SERVICE_BUILD_COMMIT=""
RUN SERVICE_BUILD_VERSION="${SERVICE_BUILD_VERSION}" SERVICE_BUILD_COMMIT="${SERVICE_BUILD_COMMIT}" npm run build

# Runtime dependencies only.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/node/package.json ./packages/node/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
# build-info.json exists only when a version or commit was given; the pattern lets COPY succeed
# without it (package.json always matches), and /ready then reports the package version.
COPY --from=build /app/package.json /app/build-info.jso[n] ./
RUN printf '#!/bin/sh\nexec node /app/dist/cli/main.js "$@"\n' > /usr/local/bin/jtrace && chmod 0755 /usr/local/bin/jtrace
# Never root: the image writes nothing, so the files can stay root-owned and read-only to it.
USER node
EXPOSE 8080
# Liveness only: /health does not touch the database; orchestrators should gate traffic on /ready.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Without DATABASE_URL the server would start an embedded PostgreSQL inside the container and
# generate its own secrets: refuse instead, for the server and the CLI alike.
ENTRYPOINT ["/bin/sh", "-c", "if [ -z \"$(printf '%s' \"${DATABASE_URL:-}\" | tr -d '[:space:]')\" ]; then echo 'jtrace: DATABASE_URL is required in this image; set it to a postgres:// URL of PostgreSQL 15 or later' >&2; exit 1; fi; exec \"$@\"", "jtrace"]
# A larger young generation: see docs/operations.md, "Memory".
CMD ["node", "--max-semi-space-size=64", "dist/main.js"]
