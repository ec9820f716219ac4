import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider claude, driven by the real ACP client', () => {
  describeAcpAgent('claude', {
    authRequired: true,
    imageReachesModel: true,
    modelSwitch: true,
    terminalSessions: true,
    // Claude Code 2.1.328 defers MCP tools: the model loads one by name with `ToolSearch` before calling it.
    mcp: [
      { call: 'ToolSearch', args: { query: 'select:mcp__echo__echo', max_results: 1 } },
      { call: 'mcp__echo__echo', args: { text: 'ping' } },
      { text: 'The echo tool answered.' },
    ],
  });
});
