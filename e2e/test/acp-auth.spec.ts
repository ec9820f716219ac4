import { describeAcpAuth } from './acp-agent-scenarios';

/*
 * The agent's auth-required answers over the session CLIs that have no full ACP spec of their own
 * here (Kilo Code, Cline, pi); the others check it in their `<cli>.acp.spec.ts` (`authRequired`).
 */
for (const name of ['kilo', 'cline', 'pi'] as const)
  describe(`cli-subprocess-core acp --provider ${name} without credentials, driven by the real ACP client`, () => {
    describeAcpAuth(name);
  });
