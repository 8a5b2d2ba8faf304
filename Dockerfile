# The service image for docker-compose.yml. No build step: tsx runs the TypeScript.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts
# The package's "files" but dist/ (the compiled SDK, for other projects) and CHANGELOG.md: a
# unit test holds the two lists equal, and an end-to-end test assembles these lines and starts
# the result.
COPY tsconfig.json ./
COPY bin ./bin
COPY adapters ./adapters
COPY commands ./commands
COPY console ./console
COPY domain ./domain
COPY projections ./projections
COPY queries ./queries
COPY sdk ./sdk
COPY clients/typescript/src ./clients/typescript/src
ENV NODE_ENV=production HOST=0.0.0.0 PORT=41873 CUSTODIAN_DATA_DIR=/data
RUN mkdir -p /data && chown node:node /data
EXPOSE 41873
USER node
CMD ["node", "bin/custodian.js", "start"]
