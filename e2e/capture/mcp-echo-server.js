// A minimal MCP server over stdio (newline-delimited JSON-RPC) with one tool, `echo`,
// so a capture can show how Codex prints an MCP tool call. Answers `fail: true` with an MCP error result.
// With MCP_ECHO_LOG set (by the host, in the server's env), each call's arguments are appended there.
const { appendFileSync } = require('node:fs');
const readline = require('node:readline');

const TOOL = {
  name: 'echo',
  description: 'Echoes the text back.',
  inputSchema: { type: 'object', properties: { text: { type: 'string' }, fail: { type: 'boolean' } }, required: ['text'] },
};

function reply(id, result) {
  process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (message.id === undefined) return; // a notification
  switch (message.method) {
    case 'initialize':
      return reply(message.id, {
        protocolVersion: message.params?.protocolVersion ?? '2025-06-18',
        capabilities: { tools: {} },
        serverInfo: { name: 'echo', version: '1.0.0' },
      });
    case 'tools/list':
      return reply(message.id, { tools: [TOOL] });
    case 'tools/call': {
      const args = message.params?.arguments ?? {};
      if (process.env.MCP_ECHO_LOG) appendFileSync(process.env.MCP_ECHO_LOG, `${JSON.stringify(args)}\n`);
      const text = `echo: ${String(args.text)}`;
      return reply(message.id, { content: [{ type: 'text', text }], isError: args.fail === true });
    }
    default:
      return process.stdout.write(
        JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: 'method not found' } }) + '\n',
      );
  }
});
