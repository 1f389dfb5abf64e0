# syntax=docker/dockerfile:1
# Build stage: the production dependencies only, installed by the same Node the image runs (none of them has an
# install script, so the slim image needs no compiler).
FROM node:24-trixie-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

# Runtime: Node 24 runs the TypeScript sources directly (type stripping, docs/adr/0001); no build step to drift
# from. Only what runs is copied: the sources (tests are left out by .dockerignore), the built-in DataSources
# and examples that the default embedded command applies, and the default instance configuration.
FROM node:24-trixie-slim
ENV NODE_ENV=production STRATUS_HOME=/var/lib/stratus
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY core ./core
COPY operator ./operator
COPY api-server ./api-server
COPY cmd ./cmd
COPY manifests/data-sources ./manifests/data-sources
COPY manifests/examples ./manifests/examples
COPY config ./config
# A numeric user, so that the kubelet can check runAsNonRoot; the chart runs pods as the same 65532.
RUN mkdir -p /var/lib/stratus && chown 65532:65532 /var/lib/stratus
USER 65532:65532
EXPOSE 8000
ENTRYPOINT ["node", "cmd/stratus.ts"]
# `docker run` gets embedded mode; the chart's Deployments run `operator` and `api-server`, and the operator's
# Jobs run `node operator/worker/main.ts`.
CMD ["embedded", "--host", "0.0.0.0", "--data-dir", "/var/lib/stratus", "--manifests", "manifests/data-sources", "--manifests", "manifests/examples"]
