#!/usr/bin/env node
// The `minimcp` command: see `minimcp help`.
import '../dist/dev/cli.js';
