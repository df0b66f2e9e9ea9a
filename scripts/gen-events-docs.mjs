#!/usr/bin/env node
// Writes docs/events.md from protocol's event schemas (run `pnpm build` first). A test fails
// when the committed file differs.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { renderEventsReference } = await import(`${root}packages/protocol/dist/events-reference.js`);
writeFileSync(`${root}docs/events.md`, renderEventsReference());
console.log("wrote docs/events.md");
