import { createReadStream } from 'node:fs';
import { createDecoder, decodeLines } from '../src';

async function main(): Promise<void> {
  // A whole transcript, as a stream: lines are split for you (CRLF, chunk borders, UTF-8).
  const kinds: string[] = [];
  for await (const event of decodeLines('claude', createReadStream('examples/claude-tool-run.jsonl'))) {
    kinds.push(event.kind);
    if (event.kind === 'tool_use') console.log('tool call:', event.payload.tool_name, JSON.stringify(event.payload.input));
    if (event.kind === 'tool_result') console.log('tool result:', JSON.stringify(event.payload.content), 'error:', event.payload.is_error);
    if (event.kind === 'result') console.log('result:', event.payload.status, JSON.stringify(event.payload.output));
  }
  console.log(kinds.join(' → '));

  // Line by line, as a process prints them: a stateful decoder for one run.
  const decoder = createDecoder('gemini', { keepRaw: 'none' });
  for (const line of [
    '{"type":"init","timestamp":"2026-03-19T10:00:00.000Z","session_id":"s-1","model":"auto"}',
    '{"type":"message","timestamp":"2026-03-19T10:00:01.000Z","role":"assistant","content":"Hel","delta":true}',
    '{"type":"message","timestamp":"2026-03-19T10:00:01.100Z","role":"assistant","content":"lo!","delta":true}',
    'a line that is not JSON',
  ]) {
    for (const event of decoder.push(line)) console.log(event.sequence, event.kind, event.provider_session_id);
  }
  for (const event of decoder.end({ code: 0, signal: null })) console.log(event.sequence, event.kind, JSON.stringify(event.payload));
}

void main();
