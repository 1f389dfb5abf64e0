# syntax=docker/dockerfile:1
# Build stage: install production dependencies with the same Node the image runs.
FROM node:24-trixie-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Runtime: Node 24 runs the TypeScript sources directly (type stripping); no build step to drift from.
FROM node:24-trixie-slim
ENV NODE_ENV=production STRATUS_HOME=/var/lib/stratus
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY core ./core
COPY operator ./operator
COPY api-server ./api-server
COPY cmd ./cmd
RUN mkdir -p /var/lib/stratus && chown 65532:65532 /var/lib/stratus
USER 65532:65532
EXPOSE 8000
COPY manifests ./manifests
COPY config ./config
ENTRYPOINT ["node", "cmd/stratus.ts"]
# Embedded mode until the Kubernetes operator and API server entry points land.
CMD ["embedded", "--host", "0.0.0.0", "--data-dir", "/var/lib/stratus", "--manifests", "manifests/data-sources", "--manifests", "manifests/examples"]
