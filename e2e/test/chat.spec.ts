/*
 * `cli-subprocess-core chat` in a real terminal (tmux), with the real pinned CLIs against the
 * scripted endpoints: one chat per CLI walks every step a person takes. A question answered; a
 * write asked and denied with `n` (no file); an edit asked, its diff shown, allowed with `y` (the
 * file there); Ctrl-C during a slow answer (the turn ends, the prompt returns); a question the
 * model sees the earlier turns with; `/model` (the next request names the model); `/new` (a
 * session that knows nothing of the first); `/cost` over both; `/help` and Ctrl-C at the prompt;
 * Ctrl-D (the chat exits 0 and no process of it is left). `UPDATE_SCREENS=1` writes each chat's
 * screen to docs/chat-screens/<cli>.txt.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { usePrivateBuild } from '../../test/build-copy';
import type { ProcessRef } from '../../src/runner/process-table';
import type { RecordedRequest } from '../scripted/server';
import type { ResponsesTurn } from '../scripted/openai-responses';
import { E2E_BIN, startScriptedCli, type ScriptedCli } from '../scripted/setup';
import { SLOW_TEXT, snapshotTree, stillRunning, waitFor } from './harness';
import { TmuxTerminal } from './tmux-terminal';

// A private build: the package's own build (dist/) belongs to `npm run build`.
const build = usePrivateBuild('e2e-chat');
const repoRoot = join(__dirname, '..', '..');

/** What differs between the CLIs in the chat. */
interface ChatCase {
  readonly name: 'claude' | 'codex' | 'gemini';
  /** Started without --provider: the CLI is chosen among those offered (all the pinned ones are on PATH). */
  readonly chosen: boolean;
  /** The URL part of the requests that stream the agent's answers. */
  readonly streamingPath: string;
  /** The edit the model makes (a new file `note.txt` holding `hello`, in `cwd`). */
  readonly edit: (cwd: string) => ResponsesTurn;
  /** The model `/model` switches to, and the model a request names. */
  readonly model: string;
  readonly modelOf: (request: RecordedRequest) => string;
  /** The model calls a switch makes before the turn's own (Codex compacts the thread first, with the old model). */
  readonly beforeSwitchedTurn?: readonly ResponsesTurn[];
}

const bodyModel = (request: RecordedRequest) => String((request.body as { model?: unknown } | null)?.model);

const CASES: readonly ChatCase[] = [
  {
    name: 'claude',
    chosen: true,
    streamingPath: '/v1/messages',
    edit: (cwd) => ({ call: 'Write', args: { file_path: join(cwd, 'note.txt'), content: 'hello\n' } }),
    // Claude Code resolves its alias to a full model id (claude-haiku-…).
    model: 'haiku',
    modelOf: bodyModel,
  },
  {
    name: 'codex',
    chosen: false,
    streamingPath: '/responses',
    edit: () => ({ patch: '*** Begin Patch\n*** Add File: note.txt\n+hello\n*** End Patch\n' }),
    // One of its listed models (another name makes it warn that it has no metadata for it).
    model: 'gpt-6-luna',
    modelOf: bodyModel,
    // Codex 0.169: a `compaction` call (trigger auto, reason comp_hash_changed) with gpt-5.5 before the turn.
    beforeSwitchedTurn: [{ text: 'The conversation so far, compacted.' }],
  },
  {
    name: 'gemini',
    chosen: false,
    streamingPath: ':streamGenerateContent',
    edit: (cwd) => ({ call: 'write_file', args: { file_path: join(cwd, 'note.txt'), content: 'hello\n' } }),
    model: 'gemini-2.5-flash',
    modelOf: (request) => /\/models\/([^:/?]+)/.exec(request.url)?.[1] ?? 'none',
  },
];

/**
 * The endpoint's script, played as the chat goes: each prompt's turns are given just before it,
 * after dropping the turns the earlier prompts did not play (a CLI may end a denied turn without
 * asking the model again), so each prompt gets its own turns whatever the CLI did before.
 */
class PlayedScript {
  private readonly turns: ResponsesTurn[] = [];
  /** How many turns the endpoint has read (its calls so far). */
  private played = 0;
  readonly script: readonly ResponsesTurn[] = new Proxy(this.turns, {
    get: (turns, key, receiver) => {
      if (typeof key === 'string' && /^\d+$/.test(key)) this.played = Math.max(this.played, Number(key) + 1);
      return Reflect.get(turns, key, receiver) as unknown;
    },
  });

  next(...turns: ResponsesTurn[]): void {
    this.turns.length = this.played;
    this.turns.push(...turns);
  }
}

/** The prompt is back (the last line is the bare prompt) and the screen holds `text`. */
const promptAfter = (text: string | RegExp) => (screen: string) => {
  const lines = screen.trimEnd().split('\n');
  const back = lines.at(-1)?.trim() === '›';
  return back && (typeof text === 'string' ? screen.includes(text) : text.test(screen));
};

const count = (screen: string, text: string) => screen.split(text).length - 1;

describe('cli-subprocess-core chat in a terminal, with the real CLIs', () => {
  const open: { cli: ScriptedCli; terminal: TmuxTerminal }[] = [];
  afterEach(async () => {
    const clis = new Set<ScriptedCli>();
    for (const { cli, terminal } of open.splice(0)) {
      // A chat a failed test left: its processes go with the terminal, before their folders do.
      const tree = terminal.exited() === null ? snapshotTree(terminal.pid) : [];
      terminal.kill();
      await waitFor('the chat to be gone', () => stillRunning(tree).length === 0, 20_000).catch(() => undefined);
      clis.add(cli);
    }
    for (const cli of clis) await cli.close();
  });

  it.each(CASES)(
    '$name: answer, deny (n), allow an edit (y), Ctrl-C a slow answer, a follow-up, /model, /new, /cost, Ctrl-D',
    async (chat) => {
      const played = new PlayedScript();
      const cli = await startScriptedCli(chat.name, played.script);
      const streaming = () => cli.server.requests.filter((request) => request.url.includes(chat.streamingPath));
      const env = {
        ...cli.env,
        // Every pinned CLI is found on PATH (the chat offers them when no provider is given).
        PATH: `${E2E_BIN}:${cli.env.PATH}`,
        TERM: 'xterm-256color',
        CLAUDE_CODE_MAX_RETRIES: '1',
      };
      const argv = [process.execPath, join(build.dir, 'cli/main.js'), 'chat', ...(chat.chosen ? [] : ['--provider', chat.name])];
      const terminal = new TmuxTerminal({ argv, env, cwd: cli.cwd, columns: 100, rows: 40 });
      open.push({ cli, terminal });

      if (chat.chosen) {
        // The pinned CLIs, numbered, in the registry's order; one picked by its id.
        await terminal.waitFor('the CLIs offered', (screen) => screen.includes('Which one? [1]'));
        expect(terminal.screen()).toMatch(/CLIs found here:\n\s+1 {2}Claude Code \(claude\)\n\s+2 {2}Codex \(codex\)/);
        terminal.typeLine(chat.name);
      }
      await terminal.waitFor('the prompt', promptAfter('/help lists the commands'));

      // /help; Ctrl-C on an empty prompt only says how to leave.
      terminal.typeLine('/help');
      await terminal.waitFor('the help', promptAfter('/cost        the tokens and cost of this chat so far'));
      terminal.keys('C-c');
      await terminal.waitFor('the hint', promptAfter('(Ctrl-C again or Ctrl-D to leave)'));

      // A question answered.
      played.next({ text: 'Hello from the scripted model.' });
      terminal.typeLine('Say hello.');
      await terminal.waitFor('the answer', promptAfter(/Hello from the scripted model\.\n\n✓ completed/));

      // A write asked and denied with n: no file.
      played.next({ shell: 'touch denied.txt' }, { text: 'I was not allowed to create denied.txt.' });
      terminal.typeLine('Create denied.txt.');
      await terminal.waitFor(
        'the first approval',
        (screen) => screen.includes('touch denied.txt') && screen.includes('Allow? y yes · n no · a always'),
      );
      terminal.keys('n');
      await terminal.waitFor('the deny', promptAfter('Allow? y yes · n no · a always no\n✗ denied'));
      expect(existsSync(join(cli.cwd, 'denied.txt'))).toBe(false);

      // An edit asked with its diff and allowed with y: the file is there.
      played.next(chat.edit(cli.cwd), { text: 'I wrote note.txt.' });
      terminal.typeLine('Write hello to note.txt.');
      await terminal.waitFor('the second approval', (screen) => count(screen, 'Allow? y yes · n no · a always') === 2);
      expect(terminal.screen()).toMatch(/note\.txt\n\s+@@ -1,0 \+1,1 @@\n\s+\+hello\n/);
      terminal.keys('y');
      await terminal.waitFor('the allowed edit', promptAfter(/Allow\? y yes · n no · a always yes\n✓ allowed[\s\S]*I wrote note\.txt\./));
      expect(readFileSync(join(cli.cwd, 'note.txt'), 'utf8')).toBe('hello\n');

      // Ctrl-C during a slow answer (its text showing as it streams): the turn ends aborted with what came, the prompt returns.
      played.next(SLOW_TEXT);
      const before = streaming().length;
      terminal.typeLine('Answer slowly.');
      await terminal.waitFor(
        'the slow answer streaming',
        (screen) => streaming().length > before && /This answer streams.* · Ctrl-C interrupts · \d+ s/.test(screen),
      );
      terminal.keys('C-c');
      await terminal.waitFor('the interrupted turn', promptAfter(/› Answer slowly\.\n\nThis answer streams[^\n]*\n\n✗ aborted/));

      // A question that needs the first: the model's request holds the earlier turns.
      played.next({ text: 'You asked me to say hello.' });
      terminal.typeLine('What did I ask first?');
      await terminal.waitFor('the follow-up', promptAfter('You asked me to say hello.'));
      expect(JSON.stringify(streaming().at(-1)?.body)).toContain('Hello from the scripted model.');

      // /model: the next turn's request names the model.
      terminal.typeLine(`/model ${chat.model}`);
      await terminal.waitFor('the model switched', promptAfter(`Model: ${chat.model} from the next turn.`));
      played.next(...(chat.beforeSwitchedTurn ?? []), { text: 'Answered by the other model.' });
      const asked = streaming().length;
      terminal.typeLine('Which model answers?');
      await terminal.waitFor('the answer of the other model', promptAfter('Answered by the other model.'));
      const switched = streaming().slice(asked);
      expect(switched).toHaveLength((chat.beforeSwitchedTurn?.length ?? 0) + 1);
      expect(chat.modelOf(switched[switched.length - 1])).toContain(chat.model);

      // /new: a new session of the same CLI, which knows nothing of the first.
      terminal.typeLine('/new');
      await terminal.waitFor(
        'the new session',
        (screen) => count(screen, '· a new session\n') === 2 && promptAfter('a new session')(screen),
      );
      played.next({ text: 'A fresh start.' });
      terminal.typeLine('Is this a new session?');
      await terminal.waitFor('the new session answer', promptAfter('A fresh start.'));
      expect(JSON.stringify(streaming().at(-1)?.body)).not.toContain('Hello from the scripted model.');

      // /cost: the chat's tokens over both sessions (and their price, or that none was reported).
      terminal.typeLine('/cost');
      await terminal.waitFor('the cost', promptAfter(/This chat \(2 sessions\): [\d,]+ in \/ [\d,]+ out tokens/));

      // Ctrl-D leaves: exit 0, no process of the chat left.
      const tree: ProcessRef[] = snapshotTree(terminal.pid);
      expect(tree.length).toBeGreaterThan(1);
      terminal.keys('C-d');
      expect(await terminal.waitFor('the chat to exit', () => terminal.exited())).toEqual({ code: 0, signal: null });
      expect(stillRunning(tree)).toEqual([]);

      const screen = terminal.screen();
      // Each turn closed by its line, once.
      expect(count(screen, '✓ completed')).toBe(6);
      expect(count(screen, '✗ aborted')).toBe(1);
      if (process.env.UPDATE_SCREENS === '1') {
        mkdirSync(join(repoRoot, 'docs', 'chat-screens'), { recursive: true });
        writeFileSync(join(repoRoot, 'docs', 'chat-screens', `${chat.name}.txt`), stable(screen, cli));
      }
    },
  );

  it('claude: --resume <cli>:<session id> continues a session in the folder it ran in, from anywhere', async () => {
    const played = new PlayedScript();
    const cli = await startScriptedCli('claude', played.script);
    const env = { ...cli.env, PATH: `${E2E_BIN}:${cli.env.PATH}`, TERM: 'xterm-256color', CLAUDE_CODE_MAX_RETRIES: '1' };
    const chat = (cwd: string, ...args: string[]) =>
      new TmuxTerminal({ argv: [process.execPath, join(build.dir, 'cli/main.js'), 'chat', ...args], env, cwd });
    const first = chat(cli.cwd, '--provider', 'claude');
    open.push({ cli, terminal: first });
    await first.waitFor('the prompt', promptAfter('/help lists the commands'));
    played.next({ text: 'The secret word is pumpernickel.' });
    first.typeLine('Tell me a secret word.');
    const id = await first.waitFor(
      'the session id',
      (screen) => promptAfter('pumpernickel')(screen) && /session ([0-9a-f-]{36})/.exec(screen)?.[1],
    );
    first.keys('C-d');
    await first.waitFor('the first chat to exit', () => first.exited());

    // Started in HOME: Claude Code keeps its sessions by folder, and the chat runs in the session's own.
    const second = chat(cli.home, '--resume', `claude:${id}`);
    open.push({ cli, terminal: second });
    await second.waitFor('the prompt', promptAfter(`Claude Code · the CLI's default model · resuming ${id}`));
    played.next({ text: 'It was pumpernickel.' });
    second.typeLine('What was the secret word?');
    await second.waitFor('the answer', promptAfter(`It was pumpernickel.`));
    expect(second.screen()).toContain(`${cli.cwd} · session ${id}`);
    const last = cli.server.requests.filter((request) => request.url.includes('/v1/messages')).at(-1);
    expect(JSON.stringify(last?.body)).toContain('The secret word is pumpernickel.');
    second.keys('C-d');
    expect(await second.waitFor('the second chat to exit', () => second.exited())).toEqual({ code: 0, signal: null });
  });
});

/** The screen with what differs between two runs named, not shown: the throwaway folders, session ids, times. */
function stable(screen: string, cli: ScriptedCli): string {
  return (
    screen
      .split(cli.cwd)
      .join('~/project')
      .replace(/session [0-9a-f-]{16,}/g, 'session <id>')
      .replace(/\d+\.\d s\b/g, '0.0 s')
      // tmux's line under a pane whose command has exited.
      .replace(/\nPane is dead \(status \d+, [^)]*\)\n?$/, '\n')
  );
}
