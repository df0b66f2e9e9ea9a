#!/usr/bin/env node
import { runBinary } from "../dist/bundle/main.js";

// uwf-acp with the hermes preset: `hermes acp`.
await runBinary("uwf-hermes", "hermes");
