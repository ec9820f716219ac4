import { createServer, get, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { END_MESSAGE, SseWriter, sseText } from '../../src/http/sse-writer';
import { SSE_HEADERS } from '../../src/http/sse-headers';

/* The one SSE writer of the runs API, the UI message stream and Nest's runEvents$ (its messages). */

describe('sseText', () => {
  it('writes the id, the event name and the data as they are, then the blank line', () => {
    expect(sseText({ id: '1700000000000-3', data: '{"kind":"raw"}' })).toBe('id: 1700000000000-3\ndata: {"kind":"raw"}\n\n');
    expect(sseText({ data: '[DONE]' })).toBe('data: [DONE]\n\n');
    expect(sseText(END_MESSAGE)).toBe('event: end\ndata: {}\n\n');
  });

  it('data of several lines is one data: line each (a raw line break would end the field), which a client joins back with \\n', () => {
    expect(sseText({ data: 'a\nb\r\nc\rd' })).toBe('data: a\ndata: b\ndata: c\ndata: d\n\n');
  });
});

describe('SseWriter', () => {
  let server: Server;
  let answer: (response: ServerResponse) => Promise<void>;
  beforeEach(async () => {
    server = createServer((_request, response) => void answer(response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** The response's headers and its whole body, as a client reads them. */
  function read(): Promise<{ headers: Record<string, unknown>; body: string }> {
    return new Promise((resolve, reject) => {
      get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ headers: response.headers, body }));
      }).on('error', reject);
    });
  }

  it('open sends the SSE headers and the retry delay; then the messages, framed text as it is, and the end', async () => {
    answer = async (response) => {
      const sse = new SseWriter(response);
      sse.open({ retryMs: 1000 });
      await sse.send({ id: '1-0', data: '{"a":1}' });
      await sse.write('data: framed\n\ndata: twice\n\n');
      await sse.send(END_MESSAGE);
      sse.end();
    };
    const { headers, body } = await read();
    expect(headers).toMatchObject(SSE_HEADERS);
    expect(body).toBe('retry: 1000\n\nid: 1-0\ndata: {"a":1}\n\ndata: framed\n\ndata: twice\n\nevent: end\ndata: {}\n\n');
  });

  it('an idle stream gets keep-alive comments until it ends; other headers when given', async () => {
    answer = async (response) => {
      const sse = new SseWriter(response);
      sse.open({ headers: { ...SSE_HEADERS, 'x-face': 'ui' }, keepAliveMs: 10 });
      // Idle until a comment has gone out.
      await new Promise<void>((resolve) => {
        const write = response.write.bind(response);
        response.write = ((chunk: string) => {
          const written = write(chunk);
          if (chunk === ': keep-alive\n\n') resolve();
          return written;
        }) as typeof response.write;
      });
      sse.end();
    };
    const { headers, body } = await read();
    expect(headers['x-face']).toBe('ui');
    expect(body).toMatch(/^(: keep-alive\n\n)+$/);
  });

  it('a client that left is sent nothing more, and send does not wait for it', async () => {
    let done!: (wrote: boolean) => void;
    const finished = new Promise<boolean>((resolve) => (done = resolve));
    answer = async (response) => {
      const sse = new SseWriter(response);
      sse.open();
      response.destroy();
      const write = response.write.bind(response);
      let wrote = false;
      response.write = ((chunk: string) => ((wrote = true), write(chunk))) as typeof response.write;
      await sse.send({ data: 'x'.repeat(1 << 20) });
      sse.comment('keep-alive');
      done(wrote || !sse.gone);
    };
    await read().catch(() => undefined);
    expect(await finished).toBe(false);
  });
});
