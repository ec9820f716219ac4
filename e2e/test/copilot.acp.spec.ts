import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider copilot, driven by the real ACP client', () => {
  describeAcpAgent('copilot', { imageReachesModel: true, authRequired: true });
});
