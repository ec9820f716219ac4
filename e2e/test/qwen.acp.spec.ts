import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider qwen, driven by the real ACP client', () => {
  describeAcpAgent('qwen', { authRequired: true });
});
