#!/usr/bin/env node
import { runBinary } from "../dist/bundle/main.js";

await runBinary("uwf-acp");
