#!/usr/bin/env node
// Writes docs/config.schema.json (for editors) from protocol's CONFIG_SCHEMA (run `pnpm build`
// first). A test fails when the committed file differs.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { configSchemaJson } = await import(`${root}packages/protocol/dist/config-schema.js`);
writeFileSync(`${root}docs/config.schema.json`, configSchemaJson());
console.log("wrote docs/config.schema.json");
