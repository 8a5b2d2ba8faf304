# The service image for docker-compose.yml. No build step: tsx runs the TypeScript.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts
COPY bin ./bin
COPY domain ./domain
COPY commands ./commands
COPY queries ./queries
COPY projections ./projections
COPY adapters ./adapters
COPY console ./console
COPY tsconfig.json ./
ENV NODE_ENV=production HOST=0.0.0.0 PORT=41873 CUSTODIAN_DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
EXPOSE 41873
USER node
CMD ["node", "bin/custodian.js", "start"]
