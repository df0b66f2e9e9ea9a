#!/usr/bin/env node
// The fake model server in a process of its own, for benches that time with spawnSync (which
// blocks the process that would have to answer): prints its OpenAI-compatible base URL, then
// answers every conversation with the text given as the first argument until it is killed.
import { fileURLToPath } from "node:url";

const { startFakeLlm } = await import(
  fileURLToPath(new URL("../packages/test-utils/dist/index.js", import.meta.url))
);
const llm = await startFakeLlm({ script: { steps: [{ text: process.argv[2] ?? "" }] } });
process.stdout.write(`${llm.baseUrl}\n`);
