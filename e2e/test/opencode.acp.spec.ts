import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider opencode, driven by the real ACP client', () => {
  describeAcpAgent('opencode', {
    imageReachesModel: true,
    authRequired: true,
    // OpenCode 1.18.33 declares a client's MCP tools directly, named `<server>_<tool>`.
    mcp: [{ call: 'echo_echo', args: { text: 'ping' } }, { text: 'The echo tool answered.' }],
  });
});
