import { CLIS, SESSION_CLI_IDS } from '../../src/clis';
import type { SessionProtocol } from '../../src/protocols/protocol';
import type { JsonObject } from '../../src/schema/json';
import { promptContent } from '../../src/sessions/prompt';
import { cliPromptParts, type PromptContent } from '../../src/wire/prompt-content';
import type { SessionProvider } from '../../src/sessions/types';

/*
 * A session prompt's content (text, images, embedded resources, resource links): checked, refused
 * where the CLI cannot take it, and written in each CLI's own form by its protocol (what the real
 * CLIs were seen to take: e2e/test/acp-agent-scenarios.ts sends them to the pinned CLIs).
 */

/** A real 4×4 red PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAEElEQVR4nGO4oKAARwzEcQDFQxEBb5JfhQAAAABJRU5ErkJggg==';
const image: PromptContent = { type: 'image', mimeType: 'image/png', data: PNG };
const resource: PromptContent = {
  type: 'resource',
  resource: { uri: 'file:///work/notes.txt', mimeType: 'text/plain', text: 'pumpernickel' },
};
const link: PromptContent = { type: 'resource_link', uri: 'file:///work/linked%20file.txt', name: 'linked file.txt' };
const content: PromptContent[] = [{ type: 'text', text: 'Look:' }, image, resource, link];

describe('promptContent', () => {
  it('a string is one text block; blocks are kept as given, extra keys too', () => {
    expect(promptContent('hi')).toEqual([{ type: 'text', text: 'hi' }]);
    const annotated = { ...link, annotations: { priority: 1 } };
    expect(promptContent([annotated])).toEqual([annotated]);
  });

  it.each([
    [[{ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' }], 'type must be one of text, image, resource, resource_link; got "audio"'],
    [[{ type: 'image', mimeType: 'image/png' }], 'prompt block 0 (image) needs data'],
    [[{ type: 'image', mimeType: 'text/plain', data: PNG }], 'mimeType must be an image type'],
    [[{ type: 'image', mimeType: 'image/png', data: 'not base64!' }], 'data must be base64'],
    [[{ type: 'resource', resource: { uri: 'file:///a' } }], 'needs resource.text or resource.blob'],
    [[{ type: 'resource_link', uri: 'file:///a' }], 'prompt block 0 (resource_link) needs name'],
    [[{ type: 'text', text: 'a\0b' }], 'prompt must not contain a NUL byte'],
    [['text'], 'prompt block 0 must be an object'],
  ])('refuses %j', (prompt, message) => {
    expect(() => promptContent(prompt as never)).toThrow(TypeError);
    expect(() => promptContent(prompt as never)).toThrow(message);
  });
});

describe('cliPromptParts', () => {
  it('text, an embedded text resource as its path then its text, a link as @path (a file URI decoded), an image kept; adjacent text joined', () => {
    expect(cliPromptParts(content, ['image/png'], 'X')).toEqual([
      { type: 'text', text: 'Look:' },
      { type: 'image', mimeType: 'image/png', data: PNG },
      { type: 'text', text: '@/work/notes.txt\npumpernickel\n@/work/linked file.txt' },
    ]);
    // A URI that is not a file's is given as it is.
    expect(cliPromptParts([{ type: 'resource_link', uri: 'https://example.com/a', name: 'a' }], [], 'X')).toEqual([
      { type: 'text', text: '@https://example.com/a' },
    ]);
    // Empty: an empty text, as an empty prompt always was.
    expect(cliPromptParts([], [], 'X')).toEqual([{ type: 'text', text: '' }]);
  });

  it('a binary image resource is an image; text-only content needs no image support', () => {
    const blob: PromptContent = { type: 'resource', resource: { uri: 'file:///a.png', mimeType: 'image/png', blob: PNG } };
    expect(cliPromptParts([blob], ['image/png'], 'X')).toEqual([{ type: 'image', mimeType: 'image/png', data: PNG }]);
    expect(cliPromptParts([resource, link], [], 'X')).toHaveLength(1);
  });

  it('refuses an image to a CLI that takes none, an image type it does not take, a binary resource that is not an image', () => {
    expect(() => cliPromptParts([image], [], 'Text CLI')).toThrow(
      new TypeError('prompt block 0 (image): Text CLI takes no image in a prompt'),
    );
    expect(() => cliPromptParts([{ ...image, mimeType: 'image/bmp' }], ['image/png'], 'X')).toThrow(
      'prompt block 0 (image): X takes images of type image/png; got image/bmp',
    );
    const pdf: PromptContent = { type: 'resource', resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: 'JVBE' } };
    expect(() => cliPromptParts([pdf], ['image/png'], 'X')).toThrow('X cannot take a binary resource that is not an image');
  });
});

/** A CLI's protocol with a recording host; `answer` replies to its request of `method` with `result`. */
function protocolOf(cli: SessionProvider) {
  const written: JsonObject[] = [];
  const failures: string[] = [];
  const protocol: SessionProtocol = CLIS[cli].session.protocol(
    { write: (message) => written.push(message), fail: (message) => failures.push(message) },
    cli,
    { provider: cli, cwd: '/work' },
  );
  const answer = (method: string, result: JsonObject) => {
    const request = written.find((message) => message.method === method);
    if (!request) throw new Error(`no ${method} request in ${JSON.stringify(written)}`);
    protocol.peer.receive({ ...(request.jsonrpc ? { jsonrpc: '2.0' } : {}), id: request.id ?? null, result });
  };
  const send = (prompt: PromptContent[]) =>
    protocol.prompt(promptContent(prompt), cliPromptParts(promptContent(prompt), CLIS[cli].session.imageTypes, cli));
  return { protocol, written, failures, answer, send };
}

describe("each CLI's form", () => {
  it('Claude Code: a user message of content blocks, the image as a base64 source; text alone a string, as ever', () => {
    const { protocol, written, send } = protocolOf('claude');
    protocol.open();
    send(content);
    send([{ type: 'text', text: 'plain' }]);
    expect(written.filter((message) => message.type === 'user').map((message) => (message.message as JsonObject).content)).toEqual([
      [
        { type: 'text', text: 'Look:' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        { type: 'text', text: '@/work/notes.txt\npumpernickel\n@/work/linked file.txt' },
      ],
      'plain',
    ]);
  });

  it("Codex: turn/start's input items, the image as a data URL", async () => {
    const { protocol, written, answer, send } = protocolOf('codex');
    protocol.open();
    send(content);
    answer('thread/start', { thread: { id: 't1' } });
    await Promise.resolve();
    const turn = written.find((message) => message.method === 'turn/start');
    expect(turn?.params).toEqual({
      threadId: 't1',
      input: [
        { type: 'text', text: 'Look:', text_elements: [] },
        { type: 'image', url: `data:image/png;base64,${PNG}` },
        { type: 'text', text: '@/work/notes.txt\npumpernickel\n@/work/linked file.txt', text_elements: [] },
      ],
    });
  });

  it('pi: the text as the message, the images apart', () => {
    const { written, send } = protocolOf('pi');
    send(content);
    expect(written.find((message) => message.type === 'prompt')).toMatchObject({
      message: 'Look:\n@/work/notes.txt\npumpernickel\n@/work/linked file.txt',
      images: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
    });
  });

  it.each([true, false])(
    'the ACP CLIs: the blocks as given; an embedded resource as text to an agent without embeddedContext (%s)',
    async (embedded) => {
      const { protocol, written, answer, send } = protocolOf('opencode');
      protocol.open();
      send(content);
      answer('initialize', { protocolVersion: 1, agentCapabilities: { promptCapabilities: { image: true, embeddedContext: embedded } } });
      await new Promise((resolve) => setImmediate(resolve));
      answer('session/new', { sessionId: 's1' });
      await new Promise((resolve) => setImmediate(resolve));
      const prompt = written.find((message) => message.method === 'session/prompt');
      expect(prompt?.params).toEqual({
        sessionId: 's1',
        prompt: [content[0], image, embedded ? resource : { type: 'text', text: '@/work/notes.txt\npumpernickel' }, link],
      });
    },
  );

  it('Copilot CLI: an embedded resource as text although its initialize says embeddedContext (it would only name a file of it to the model)', async () => {
    const { protocol, written, answer, send } = protocolOf('copilot');
    protocol.open();
    answer('initialize', { protocolVersion: 1, agentCapabilities: { promptCapabilities: { image: true, embeddedContext: true } } });
    await new Promise((resolve) => setImmediate(resolve));
    answer('session/new', { sessionId: 's1' });
    await new Promise((resolve) => setImmediate(resolve));
    send([resource]);
    expect(written.find((message) => message.method === 'session/prompt')?.params).toEqual({
      sessionId: 's1',
      prompt: [{ type: 'text', text: '@/work/notes.txt\npumpernickel' }],
    });
  });

  it('every session CLI says which images it takes (the ACP agent advertises promptCapabilities.image from it)', () => {
    for (const cli of SESSION_CLI_IDS) expect({ cli, images: CLIS[cli].session.imageTypes.length > 0 }).toEqual({ cli, images: true });
  });
});
