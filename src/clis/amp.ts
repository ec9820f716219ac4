import { homedir } from 'node:os';
import { join } from 'node:path';
import { ampProfile } from '../providers/amp';
import type { CliDefinition } from './definition';

/*
 * Amp (`amp -x --stream-json`): decoded only (its agent loop runs on its own server, which cannot
 * be reached from here).
 */
export const amp = {
  id: 'amp',
  name: 'Amp',
  executable: 'amp',
  install: 'install @sourcegraph/amp',
  npmPackage: null,
  // Not started by this package: no environment to allow.
  env: { documented: [], drop: [] },
  // Amp's docs: AMP_API_KEY (an access token from its settings), or `amp login`, which keeps the key
  // in `~/.local/share/amp/secrets.json` (where tools that switch Amp accounts read it).
  auth: {
    keyVariables: ['AMP_API_KEY'],
    login: ['login'],
    loginFiles: (env) => [join(env.HOME ?? homedir(), '.local', 'share', 'amp', 'secrets.json')],
  },
  decode: ampProfile,
  tools: {},
  planTools: [],
} satisfies CliDefinition;
