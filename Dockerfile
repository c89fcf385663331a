# healthd: build the TypeScript, then run the compiled server as a non-root user
# with production dependencies only. Point it at your PostgreSQL with
# DATABASE_URL (the embedded demo database is for local use, not containers).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY viewer ./viewer
COPY workers ./workers
COPY test ./test
COPY bench ./bench
RUN npm run build && npm prune --omit=dev --omit=optional

FROM node:20-bookworm-slim
ENV NODE_ENV=production SERVICE_HOST=0.0.0.0 SERVICE_PORT=8081
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY --from=build /app/dist/workers ./dist/workers
COPY --from=build /app/dist/viewer ./dist/viewer
USER node
EXPOSE 8081
CMD ["node", "dist/src/main.js"]
