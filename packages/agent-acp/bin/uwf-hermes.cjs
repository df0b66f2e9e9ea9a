#!/usr/bin/env node
"use strict";
// uwf-acp with the hermes preset: `hermes acp`.
require("../dist/bundle/boot.cjs").boot("uwf-hermes").runBinary("uwf-hermes", "hermes");
