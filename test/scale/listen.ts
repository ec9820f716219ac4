import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** `handle` (a runs handler) served on 127.0.0.1 at a free port, 404 for what it does not handle: its base URL, and how to stop it. */
export async function listen(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<boolean>,
): Promise<{ base: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    void handle(request, response).then((handled) => {
      if (!handled) response.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
