#!/usr/bin/env node
// The operator CLI, run from source through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');
