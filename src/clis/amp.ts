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
  decode: ampProfile,
  tools: {},
  planTools: [],
} satisfies CliDefinition;
