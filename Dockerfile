# One image for the API, the worker, the sandbox and the CLI; the command picks the process.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# The TypeScript client (its build is part of the server's: the tests compile against its types).
COPY sdk/package.json sdk/package-lock.json sdk/
RUN cd sdk && npm ci --no-audit --no-fund
COPY tsconfig.json knexfile.ts ./
COPY src src
COPY workflows workflows
COPY activities activities
COPY migrations migrations
COPY migrations-control migrations-control
COPY test test
COPY bench bench
COPY scripts scripts
COPY dashboard dashboard
COPY sdk sdk
# The server build into dist/ and the dashboard into dist/dashboard (served by the API at /dashboard).
RUN node scripts/build.mjs && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
USER node
# 3000 the API, 9464 the API's /metrics, 9465 (and up, one per worker process) the worker's
EXPOSE 3000 4010 9464 9465
CMD ["node", "--enable-source-maps", "dist/src/main/api.js"]
