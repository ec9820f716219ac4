import { describeAcpAgent } from './acp-agent-scenarios';

describe('cli-subprocess-core acp --provider gemini, driven by the real ACP client', () => {
  describeAcpAgent('gemini', { imageReachesModel: true, modelSwitch: true });
});
