import { opencodeProfile } from '../providers/opencode';
import { str } from '../providers/drafts';
import { acpClient } from '../protocols/acp';
import type { CliDefinition } from './definition';

/*
 * OpenCode (`opencode-ai`). Flags as the pinned version's `--help` has them (1.18.33).
 */
export const opencode = {
  id: 'opencode',
  name: 'OpenCode',
  executable: 'opencode',
  install: 'install opencode-ai',
  npmPackage: 'opencode-ai',
  env: {
    // OpenCode's docs: OPENCODE_CONFIG, OPENCODE_DISABLE_*…; its providers (the AI SDK's) read their keys and base URLs.
    documented: ['OPENCODE_*', 'ANTHROPIC_*', 'OPENAI_*'],
    drop: [],
  },
  decode: opencodeProfile,
  session: {
    protocolName: 'ACP',
    args: ['acp'],
    // `opencode acp` has no model flag: the model is opencode.json's `model`.
    model: null,
    resume: 'protocol',
    // OpenCode's first `tool_call` (pending) is titled with the tool's name (`bash`); later titles are the command.
    protocol: acpClient({ toolName: (call) => (call.sessionUpdate === 'tool_call' ? str(call.title) : null) }),
    // Its session answer's `model` config option, switched by `session/set_config_option` (1.18.33).
    models: { switchesRunning: true },
  },
  tools: {
    bash: 'execute',
    read: 'read',
    list: 'read',
    write: 'edit',
    edit: 'edit',
    glob: 'search',
    grep: 'search',
    webfetch: 'fetch',
    task: 'think',
  },
  planTools: ['todowrite'],
} satisfies CliDefinition;
