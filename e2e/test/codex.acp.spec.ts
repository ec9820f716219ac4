import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider codex, driven by the real ACP client', () => {
  describeAcpAgent('codex', { modelSwitch: true });
});
