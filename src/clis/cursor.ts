import { cursorProfile } from '../providers/cursor';
import type { CliDefinition } from './definition';

/*
 * Cursor's agent CLI (`cursor-agent -p --output-format stream-json`): decoded only (it is not on
 * npm, so it cannot be run and tested here).
 */
export const cursor = {
  id: 'cursor',
  name: 'Cursor Agent',
  executable: 'cursor-agent',
  install: 'install Cursor Agent (curl https://cursor.com/install -fsS | bash)',
  npmPackage: null,
  // Not started by this package: no environment to allow.
  env: { documented: [], drop: [] },
  // Cursor's CLI docs (cursor.com/docs/cli/reference/authentication): CURSOR_API_KEY (or `--api-key`),
  // or `cursor-agent login` (a browser flow), whose credentials are "stored locally" where the docs
  // do not say: none is looked for.
  auth: { keyVariables: ['CURSOR_API_KEY'], login: ['login'], loginFiles: () => [] },
  decode: cursorProfile,
  // Its `tool_call` lines name a tool by the key of the call's object.
  tools: {
    shellToolCall: 'execute',
    readToolCall: 'read',
    lsToolCall: 'read',
    editToolCall: 'edit',
    deleteToolCall: 'delete',
    globToolCall: 'search',
    grepToolCall: 'search',
  },
  planTools: [],
} satisfies CliDefinition;
