#!/usr/bin/env node
// Writes docs/cli.md from the built command table (run `pnpm build` first).
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { renderCliReference } = await import(`${root}packages/cli/dist/help/reference.js`);
const { COMMANDS } = await import(`${root}packages/cli/dist/commands/index.js`);
writeFileSync(`${root}docs/cli.md`, renderCliReference(COMMANDS));
console.log("wrote docs/cli.md");
