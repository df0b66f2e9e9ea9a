#!/usr/bin/env node
"use strict";
require("../dist/bundle/boot.cjs").boot("uwf-mock");
