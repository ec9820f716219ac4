/**
 * The headers of a server-sent events response: the runs API's event streams and the UI message
 * stream both send them. `x-accel-buffering: no` keeps nginx from holding the stream back.
 */
export const SSE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});
