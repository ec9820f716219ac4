import type { McpNameValue, McpServer, McpServerKind } from '../sessions/types';
import type { McpSetup } from './definition';

/*
 * The host's MCP servers (`SessionOptions.mcpServers`, ACP's `McpServer` shapes), checked once for
 * every CLI before any of them gets them in its own form (its registry entry's `mcpServers`).
 */

/**
 * A server's name: letters, digits, `_` and `-`, not first. Codex takes it as a key of its
 * `mcp_servers` config (a `.` would nest it), every CLI as part of its tools' names
 * (`mcp__<name>__<tool>`), and none of them may read it as a flag.
 */
const SERVER_NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/;

/** The transport of a server: a stdio one has no `type` (ACP's shape). */
export function mcpServerKind(server: McpServer): McpServerKind {
  return 'type' in server ? server.type : 'stdio';
}

/** A list of names and values as an object (the form Claude Code and Codex take env and headers in). */
export function nameValueRecord(list: readonly McpNameValue[]): Record<string, string> {
  return Object.fromEntries(list.map((entry) => [entry.name, entry.value]));
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** A list of `{name, value}` strings (absent: none), copied; a TypeError naming `what` otherwise. */
function nameValues(what: string, list: unknown): McpNameValue[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new TypeError(`${what} must be a list of {name, value}`);
  return list.map((entry: unknown) => {
    const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown };
    if (!isString(name) || name === '' || !isString(value))
      throw new TypeError(`${what} must be a list of {name, value} strings; got ${JSON.stringify(entry)}`);
    return { name, value };
  });
}

/**
 * The servers for `provider`'s session, checked and copied in ACP's exact shapes (unknown keys such
 * as `_meta` left out): a TypeError when the CLI takes no MCP servers, or not of a server's kind,
 * for a server of no known shape, a name `SERVER_NAME` refuses, or two servers of one name.
 */
export function checkMcpServers(provider: string, setup: McpSetup | null, servers: readonly McpServer[] | undefined): McpServer[] {
  if (servers === undefined) return [];
  if (!Array.isArray(servers)) throw new TypeError('mcpServers must be a list');
  if (servers.length > 0 && setup === null) throw new TypeError(`${provider} takes no MCP servers in a session`);
  const names = new Set<string>();
  return servers.map((given: unknown) => {
    const server = (given ?? {}) as Record<string, unknown>;
    const { name } = server;
    if (!isString(name) || !SERVER_NAME.test(name))
      throw new TypeError(`an MCP server's name must be 1-64 letters, digits, "_" or "-" (not first); got ${JSON.stringify(name)}`);
    if (names.has(name)) throw new TypeError(`two MCP servers are named ${JSON.stringify(name)}`);
    names.add(name);
    const kind = server.type ?? 'stdio';
    if (kind !== 'stdio' && kind !== 'http' && kind !== 'sse')
      throw new TypeError(`MCP server ${name}: type must be "http", "sse" or none (stdio); got ${JSON.stringify(kind)}`);
    if (!setup?.kinds.includes(kind))
      throw new TypeError(`${provider} takes no ${kind} MCP servers (MCP server ${name}); it takes ${setup?.kinds.join(', ')}`);
    if (kind === 'stdio') {
      const { command, args } = server;
      if (!isString(command) || command === '') throw new TypeError(`MCP server ${name}: command must be a non-empty string`);
      if (args !== undefined && !(Array.isArray(args) && args.every(isString)))
        throw new TypeError(`MCP server ${name}: args must be a list of strings`);
      return { name, command, args: [...((args as string[] | undefined) ?? [])], env: nameValues(`MCP server ${name}: env`, server.env) };
    }
    const { url } = server;
    if (!isString(url) || !/^https?:\/\//i.test(url)) throw new TypeError(`MCP server ${name}: url must be an http(s) URL`);
    return { type: kind, name, url, headers: nameValues(`MCP server ${name}: headers`, server.headers) };
  });
}
