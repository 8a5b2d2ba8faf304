#!/usr/bin/env node
// Runs the TypeScript CLI directly: tsx registers the loader, so there is no build step.
import { register } from 'tsx/esm/api';

register();
await import('../adapters/cli/main.ts');
