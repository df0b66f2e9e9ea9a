#!/usr/bin/env node
"use strict";
require("../dist/replay-bundle/boot.cjs").boot("uwf-replay");
