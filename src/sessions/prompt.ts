import { refuseNul } from '../runner/flags';
import type { PromptContent, SessionPrompt } from '../wire/prompt-content';

/** A caller's prompt (`Session.send`), checked before anything is sent: the content's forms are `src/wire/prompt-content.ts`. */

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The string at `key` of a block, or a TypeError naming the block. */
function field(block: Record<string, unknown>, key: string, at: number, optional = false): string | undefined {
  const value = block[key];
  if (value === undefined || value === null) {
    if (optional) return undefined;
    throw new TypeError(`prompt block ${at} (${String(block.type)}) needs ${key}`);
  }
  if (typeof value !== 'string') throw new TypeError(`prompt block ${at} (${String(block.type)}): ${key} must be a string`);
  refuseNul(`prompt block ${at} (${String(block.type)}) ${key}`, value);
  return value;
}

/** Base64, as images and blobs must be: a TypeError otherwise (the CLIs would send it on, and the model API refuse the turn). */
function base64(block: Record<string, unknown>, key: string, at: number, label: string): string {
  const value = field(block, key, at) as string;
  if (value.length % 4 !== 0 || !BASE64.test(value)) throw new TypeError(`prompt block ${at} (${label}): ${key} must be base64`);
  return value;
}

/**
 * A prompt as checked blocks: a string is one text block. A TypeError for anything else than a
 * string or an array of blocks of the four kinds, a block missing what its kind needs, data that
 * is not base64, or a NUL byte (no CLI can take one).
 */
export function promptContent(prompt: SessionPrompt): PromptContent[] {
  if (typeof prompt === 'string') {
    refuseNul('prompt', prompt);
    return [{ type: 'text', text: prompt }];
  }
  if (!Array.isArray(prompt)) throw new TypeError('prompt must be a string or an array of content blocks');
  return prompt.map((value: unknown, at): PromptContent => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`prompt block ${at} must be an object`);
    const block = value as Record<string, unknown>;
    switch (block.type) {
      case 'text':
        if (typeof block.text !== 'string') throw new TypeError(`prompt block ${at} (text) needs text, a string`);
        refuseNul('prompt', block.text);
        break;
      case 'image':
        if (!/^image\/[\w.+-]+$/.test(field(block, 'mimeType', at) as string))
          throw new TypeError(`prompt block ${at} (image): mimeType must be an image type; got ${JSON.stringify(block.mimeType)}`);
        base64(block, 'data', at, 'image');
        field(block, 'uri', at, true);
        break;
      case 'resource_link':
        field(block, 'uri', at);
        field(block, 'name', at);
        break;
      case 'resource': {
        const resource = block.resource;
        if (typeof resource !== 'object' || resource === null) throw new TypeError(`prompt block ${at} (resource) needs resource`);
        const inner = resource as Record<string, unknown>;
        field(inner, 'uri', at);
        field(inner, 'mimeType', at, true);
        if (typeof inner.text === 'string') field(inner, 'text', at);
        else if (typeof inner.blob === 'string') base64(inner, 'blob', at, 'resource');
        else throw new TypeError(`prompt block ${at} (resource) needs resource.text or resource.blob`);
        break;
      }
      default:
        throw new TypeError(
          `prompt block ${at}: type must be one of text, image, resource, resource_link; got ${JSON.stringify(block.type)}`,
        );
    }
    return block as unknown as PromptContent;
  });
}
