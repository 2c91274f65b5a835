#!/usr/bin/env node
// The CLI is compiled to dist/ when the package is installed (its prepare script) or packed.
import '../dist/cli.js';
