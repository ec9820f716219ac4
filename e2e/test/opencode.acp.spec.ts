import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider opencode, driven by the real ACP client', () => {
  describeAcpAgent('opencode', { imageReachesModel: true });
});
