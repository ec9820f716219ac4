import { fileURLToPath } from 'node:url';
import { refuseNul } from '../runner/flags';

/*
 * A session turn's prompt as content, not only text: the blocks of an ACP prompt (text, image,
 * embedded resource, resource link), in ACP's own shapes, so an editor's prompt passes through
 * unchanged. Each protocol writes them in its CLI's form (`SessionProtocol.prompt`); what a CLI
 * cannot take is refused here, before anything is sent.
 */

/** Plain text. */
export interface TextContent {
  type: 'text';
  text: string;
}

/** An image, inline: its media type (`image/png`) and its bytes in base64. */
export interface ImageContent {
  type: 'image';
  mimeType: string;
  data: string;
  /** Where it came from, if anywhere (ACP's optional `uri`). */
  uri?: string;
}

/** A resource's content, embedded: text (a file the editor has open), or bytes in base64 (`blob`). */
export type EmbeddedResource =
  { uri: string; mimeType?: string | null; text: string } | { uri: string; mimeType?: string | null; blob: string };

/** A resource given with its content (ACP's embedded context: the editor's selected file). */
export interface ResourceContent {
  type: 'resource';
  resource: EmbeddedResource;
}

/** A reference to a resource the CLI can read itself (a `file://` URI: a file of the workspace). */
export interface ResourceLinkContent {
  type: 'resource_link';
  uri: string;
  name: string;
  title?: string | null;
  description?: string | null;
  mimeType?: string | null;
  size?: number | null;
}

/** One block of a prompt; the shapes are ACP's `ContentBlock`s (audio aside), whose extra keys (`annotations`, `_meta`) are kept. */
export type PromptContent = TextContent | ImageContent | ResourceContent | ResourceLinkContent;

/** What `Session.send` takes: text, or blocks of content. */
export type SessionPrompt = string | readonly PromptContent[];

/** The image types every model API behind the CLIs here takes (Anthropic's, OpenAI's, Gemini's): a CLI's `SessionSetup.imageTypes`. */
export const WEB_IMAGE_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

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

/** A URI as a reference the CLI can read: a `file://` URI as its path (the CLIs read files by path), any other as given. */
function reference(uri: string): string {
  if (uri.startsWith('file://')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return uri;
    }
  }
  return uri;
}

/**
 * A block the CLI takes as text: its text, a resource link as `@<path or URI>` (the mention every
 * CLI here resolves, and a path its tools can read), an embedded text resource as that line then
 * its text. Null for an image or a binary resource.
 */
export function contentText(block: PromptContent): string | null {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'resource_link':
      return `@${reference(block.uri)}`;
    case 'resource':
      return 'text' in block.resource ? `@${reference(block.resource.uri)}\n${block.resource.text}` : null;
    default:
      return null;
  }
}

/** A binary resource of an image type, as an image (the form the CLIs take bytes in); null for any other block. */
function resourceImage(block: PromptContent): ImageContent | null {
  if (block.type !== 'resource' || !('blob' in block.resource)) return null;
  const mimeType = block.resource.mimeType ?? '';
  return mimeType.startsWith('image/') ? { type: 'image', mimeType, data: block.resource.blob, uri: block.resource.uri } : null;
}

/** A prompt's blocks for a CLI: each as text, or as an image (a binary image resource is one). */
export type CliPromptPart = { type: 'text'; text: string } | ImageContent;

/**
 * The prompt's blocks in the form a CLI that takes text and images takes them (each protocol then
 * writes its own wire form), in order, adjacent text joined by newlines. A TypeError, before
 * anything is sent, for an image of a type not in `imageTypes` (none: the CLI takes no image) and
 * for a binary resource that is not an image: `cli` names the CLI.
 */
export function cliPromptParts(content: readonly PromptContent[], imageTypes: readonly string[], cli: string): CliPromptPart[] {
  const parts: CliPromptPart[] = [];
  content.forEach((block, at) => {
    const text = contentText(block);
    if (text !== null) {
      const last = parts.at(-1);
      if (last?.type === 'text') last.text = `${last.text}\n${text}`;
      else parts.push({ type: 'text', text });
      return;
    }
    const image = block.type === 'image' ? block : resourceImage(block);
    if (image === null) throw new TypeError(`prompt block ${at} (resource): ${cli} cannot take a binary resource that is not an image`);
    if (imageTypes.length === 0) throw new TypeError(`prompt block ${at} (image): ${cli} takes no image in a prompt`);
    if (!imageTypes.includes(image.mimeType))
      throw new TypeError(`prompt block ${at} (image): ${cli} takes images of type ${imageTypes.join(', ')}; got ${image.mimeType}`);
    parts.push({ type: 'image', mimeType: image.mimeType, data: image.data });
  });
  // An empty prompt is an empty text, as it always was.
  return parts.length === 0 ? [{ type: 'text', text: '' }] : parts;
}

/** The prompt's text, for a protocol that takes the images apart (pi's `images`): its text parts joined by newlines. */
export function partsText(parts: readonly CliPromptPart[]): string {
  return parts
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** Whether the prompt is text only: a protocol then writes it exactly as a text prompt (one string). */
export const textOnly = (parts: readonly CliPromptPart[]): parts is [{ type: 'text'; text: string }] =>
  parts.length === 1 && parts[0].type === 'text';
