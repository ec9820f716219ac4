import type { Config } from 'jest';

/*
 * The real-CLI suite (e2e/test): the pinned Claude Code, Codex and Gemini CLI run through
 * `startRun` against scripted endpoints on 127.0.0.1. It needs `npm install --prefix e2e`; without
 * it the suite fails at once and says so (see e2e/test/global-setup.ts).
 */
const config: Config = {
  testEnvironment: 'node',
  roots: ['<rootDir>/e2e/test'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/e2e/test/global-setup.ts',
  // One file per CLI; the runs are mostly waiting on child processes, so more workers than cores pay off.
  maxWorkers: 4,
  // A limit on hangs, not on speed: under CI load one OpenCode ACP test (two agent processes, a
  // replayed history and a second turn) took over 120 s while every step was progressing.
  testTimeout: 300_000,
};

export default config;
