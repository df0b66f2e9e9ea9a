#!/usr/bin/env node
"use strict";
require("../dist/bundle/boot.cjs").boot("uwf-acp").runBinary("uwf-acp");
