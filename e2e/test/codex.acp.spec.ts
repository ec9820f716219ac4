import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider codex, driven by the real ACP client', () => {
  describeAcpAgent('codex', {
    imageReachesModel: true,
    modelSwitch: true,
    terminalSessions: true,
    // Codex 0.169 declares MCP tools in a namespace `mcp__<server>` the model searches first.
    mcp: [{ toolSearch: 'echo' }, { call: 'echo', namespace: 'mcp__echo', args: { text: 'ping' } }, { text: 'The echo tool answered.' }],
  });
});
