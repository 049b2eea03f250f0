# One image for the API, the worker, the sandbox and the CLI; the command picks the process.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json knexfile.ts ./
COPY src src
COPY workflows workflows
COPY activities activities
COPY migrations migrations
COPY test test
COPY bench bench
COPY scripts scripts
COPY dashboard dashboard
# The server build into dist/ and the dashboard into dist/dashboard (served by the API at /dashboard).
RUN node scripts/build.mjs && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
USER node
EXPOSE 3000 4010
CMD ["node", "--enable-source-maps", "dist/src/main/api.js"]
