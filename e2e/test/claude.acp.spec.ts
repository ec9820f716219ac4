import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider claude, driven by the real ACP client', () => {
  describeAcpAgent('claude', { authRequired: true, modelSwitch: true });
});
