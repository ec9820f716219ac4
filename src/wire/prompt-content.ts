import { fileURLToPath } from 'node:url';

/*
 * A session turn's prompt as content, not only text: the blocks of an ACP prompt (text, image,
 * embedded resource, resource link), in ACP's own shapes, so an editor's prompt passes through
 * unchanged; and the same as text and images, the form every protocol writes in its CLI's own way
 * (`SessionProtocol.prompt`). What a CLI cannot take is refused before anything is sent. The
 * sessions check a caller's prompt (`src/sessions/prompt.ts`).
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
 * A block the CLI takes as text: its text, a resource link as `@<path or URI>` (a path the CLI's
 * tools can read: the model reads the file if it needs it), an embedded text resource as that line then
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
