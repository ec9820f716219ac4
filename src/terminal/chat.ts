import { CLIS } from '../clis';
import type { Event } from '../events/event';
import { listCliSessions } from '../history';
import { listedModels, modelChoices, modelSwitch } from '../projections/acp/config-options';
import { noCliFound } from '../projections/acp/auth';
import { str } from '../providers/drafts';
import { addUsage, UsageTotals, type UsageFigures } from '../providers/usage';
import { ExecutableNotFoundError } from '../runner/errors';
import { installedClis } from '../sessions/installed-clis';
import { startSession } from '../sessions/session';
import type { Session, SessionProvider } from '../sessions/types';
import { answerWord, APPROVAL_QUESTION, approvalAnswerFor } from './approval-key';
import { CHAT_COMMANDS, chatHelp, parseChatLine, type ChatCommandName, type ChatLine } from './chat-line';
import { ChatScreen, type TerminalInput, type TerminalOutput } from './chat-screen';
import { cliOffer, parseCliChoice } from './cli-choice';
import type { ResumeTarget } from './resume-id';
import { colorEnabled, palette, type Palette } from './style';
import { Transcript, transcriptOptionsFor } from './transcript';
import { usageParts } from './usage-text';

/** What `chat` starts with. */
export interface ChatOptions {
  /** The CLI; none: the CLIs found on PATH are offered (or the one of `resume`). */
  readonly provider?: SessionProvider;
  readonly model?: string;
  /** A CLI's session to continue. */
  readonly resume?: ResumeTarget;
  /** Where the CLI works; default the resumed session's folder, else the current one. */
  readonly cwd?: string;
}

/** The terminal and environment the chat runs in (`process`'s in the command). */
export interface ChatTerminal {
  readonly input: TerminalInput;
  readonly output: TerminalOutput;
  /** Decides colour (NO_COLOR, FORCE_COLOR) and where a resumed session's folder is looked up. */
  readonly env: NodeJS.ProcessEnv;
  /** Signals that stop the chat from outside (SIGINT in cooked mode, SIGHUP, SIGTERM): `process`. */
  readonly signals: NodeJS.EventEmitter;
}

/** Exit code when no CLI can be started (none on PATH, the one named missing), as a shell's "command not found". */
const NOT_FOUND_EXIT_CODE = 127;

/** The status line while a turn runs. */
const WORKING = 'working · Ctrl-C interrupts';

/** How often a question is checked for a request answered otherwise (timed out, withdrawn). */
const WITHDRAWN_POLL_MS = 500;

/** How much of the text under way the status line shows (its end). */
const STREAMING_TAIL = 60;

/** The status line while text streams: the end of the paragraph under way. */
function streamingStatus(pending: string): string {
  const flat = pending.replace(/\s+/g, ' ').trim();
  if (flat === '') return WORKING;
  return `${flat.length > STREAMING_TAIL ? `…${flat.slice(-STREAMING_TAIL)}` : flat} · Ctrl-C interrupts`;
}

/** One CLI session of the chat, with its transcript and the usage of its conversation. */
interface Conversation {
  readonly provider: SessionProvider;
  readonly session: Session;
  readonly transcript: Transcript;
  /** The model asked for (null: the CLI's own choice), or the one the CLI announced. */
  model: string | null;
  /** The conversation's usage: a session resumed to switch the model goes on adding to it. */
  readonly usage: UsageTotals;
  /** Resolves once the session's events are all written. */
  pumped: Promise<void>;
  ended: boolean;
}

/**
 * `chat`: one interactive chat over any CLI of the registry, on `startSession`: a prompt with line
 * editing and history, each answer written as a transcript while it streams, each approval asked
 * inline (`y`, `n`, `a`), Ctrl-C interrupting the turn (twice: leaving), Ctrl-D leaving, and the
 * slash commands of `CHAT_COMMANDS`. Nothing in it knows a CLI by name: what a CLI can do (switch
 * its model, resume) comes from its registry file. Answers the exit code.
 */
export function runChat(options: ChatOptions, terminal: ChatTerminal): Promise<number> {
  return new Chat(options, terminal).run();
}

class Chat {
  private readonly colors: Palette;
  private readonly screen: ChatScreen;
  private readonly cwd: string | undefined;
  private current: Conversation | null = null;
  /** The usage of the chat's earlier conversations. */
  private readonly earlier: UsageTotals[] = [];
  /** Settles the running turn once its result is written. */
  private turnOver: (() => void) | null = null;
  private ctrlCs = 0;
  private leaving = false;

  constructor(
    private readonly options: ChatOptions,
    private readonly terminal: ChatTerminal,
  ) {
    this.colors = palette(colorEnabled(terminal.output, terminal.env));
    this.screen = new ChatScreen(
      terminal.input,
      terminal.output,
      this.colors,
      Object.keys(CHAT_COMMANDS).map((name) => `/${name}`),
    );
    this.cwd = options.cwd;
  }

  async run(): Promise<number> {
    const onSignal = (signal: NodeJS.Signals) => (signal === 'SIGINT' && this.turnOver ? this.ctrlC() : this.leave());
    const signals = ['SIGINT', 'SIGHUP', 'SIGTERM'] as const;
    for (const signal of signals) this.terminal.signals.on(signal, onSignal);
    try {
      const provider = this.options.resume?.provider ?? this.options.provider ?? (await this.chooseCli());
      if (provider === null) return this.leaving ? 0 : NOT_FOUND_EXIT_CODE;
      const cwd = this.cwd ?? (this.options.resume ? await this.resumedCwd(this.options.resume) : undefined);
      if (!this.start(provider, this.options.model ?? null, this.options.resume?.id, cwd)) return NOT_FOUND_EXIT_CODE;
      this.screen.line(this.colors.dim('/help lists the commands · Ctrl-C interrupts a turn · Ctrl-D leaves'));
      await this.converse(cwd);
      return 0;
    } finally {
      await this.end();
      this.screen.close();
      for (const signal of signals) this.terminal.signals.off(signal, onSignal);
    }
  }

  /** Reads the prompt until the chat is left. */
  private async converse(cwd: string | undefined): Promise<void> {
    let interrupted = false;
    while (!this.leaving) {
      const read = await this.screen.readLine(this.colors.bold(this.colors.cyan('› ')));
      if (read.kind === 'eof' || (read.kind === 'interrupt' && interrupted)) break;
      interrupted = read.kind === 'interrupt';
      if (read.kind === 'interrupt') this.screen.line(this.colors.dim('(Ctrl-C again or Ctrl-D to leave)'));
      else await this.play(parseChatLine(read.text), cwd);
    }
  }

  private async play(line: ChatLine, cwd: string | undefined): Promise<void> {
    switch (line.kind) {
      case 'empty':
        return;
      case 'mistake':
        return this.screen.line(this.colors.red(line.message));
      case 'prompt':
        return this.turn(line.text);
      case 'command':
        return this.command(line.name, line.arg, cwd);
    }
  }

  // ---- sessions -----------------------------------------------------------------------------

  /** Starts a session of `provider`; false (said on screen) when it cannot start. */
  private start(provider: SessionProvider, model: string | null, resume?: string, cwd?: string, usage = new UsageTotals()): boolean {
    let session: Session;
    try {
      session = startSession({ provider, model: model ?? undefined, resume, cwd, approvals: 'ask' });
    } catch (error) {
      if (!(error instanceof ExecutableNotFoundError || error instanceof TypeError)) throw error;
      this.screen.line(this.colors.red(`✗ ${error.message}`));
      return false;
    }
    const transcript = new Transcript(transcriptOptionsFor(this.terminal.output, this.terminal.env));
    const conversation: Conversation = { provider, session, transcript, model, usage, pumped: Promise.resolve(), ended: false };
    conversation.pumped = this.pump(conversation);
    this.current = conversation;
    const what = [
      CLIS[provider].name,
      model ? `model ${model}` : "the CLI's default model",
      resume ? `resuming ${resume}` : 'a new session',
    ];
    this.screen.line(this.colors.bold(what.join(' · ')));
    return true;
  }

  /** Writes a session's events as a transcript, asks its approvals, and ends each turn at its result. */
  private async pump(conversation: Conversation): Promise<void> {
    const { session, transcript } = conversation;
    try {
      for await (const event of session) {
        if (event.kind === 'cost_update') conversation.usage.add(event.payload);
        if (event.kind === 'run_started') conversation.model = str(event.payload.metadata.model) ?? conversation.model;
        // The prompt is on the screen already, as typed.
        if (event.kind === 'user_message') continue;
        this.screen.write(transcript.push(event));
        // The text of a paragraph under way shows as it streams, in the status line.
        if (event.kind === 'assistant_delta' && this.turnOver) this.screen.setStatus(streamingStatus(transcript.pending));
        if (event.kind === 'approval_requested') await this.approval(session, event);
        if (event.kind === 'result') this.endTurn();
      }
    } finally {
      this.screen.write(transcript.end());
      conversation.ended = true;
      this.endTurn();
    }
  }

  /** Asks an approval the CLI asked, and answers it with the key pressed (none when the turn was interrupted). */
  private async approval(session: Session, event: Event<'approval_requested'>): Promise<void> {
    const id = event.payload.approval_id;
    if (id === null || !session.pendingApprovals.includes(id)) return;
    // A request answered otherwise meanwhile (its time out, the CLI withdrawing it) ends the question.
    const watch = setInterval(() => {
      if (!session.pendingApprovals.includes(id)) this.screen.withdrawQuestion(this.colors.dim('(no longer asked)'));
    }, WITHDRAWN_POLL_MS);
    const key = await this.screen
      .askKey(this.colors.yellow(APPROVAL_QUESTION), (pressed) => {
        const answer = approvalAnswerFor(pressed);
        return answer === null ? null : answerWord(answer);
      })
      .finally(() => clearInterval(watch));
    const answer = key === null ? null : approvalAnswerFor(key);
    if (answer !== null) session.approve(id, answer);
  }

  /** Closes the current session (its last events written); its usage counts among the earlier ones. */
  private async end(): Promise<void> {
    const conversation = this.current;
    if (conversation === null) return;
    this.current = null;
    await conversation.session.close();
    await conversation.pumped;
    this.earlier.push(conversation.usage);
  }

  /** A new session in place of the current one (`resume`: the current conversation goes on in it). */
  private async restart(provider: SessionProvider, model: string | null, cwd: string | undefined, resume: boolean): Promise<void> {
    const old = this.current;
    const resumed = resume && old !== null && old.session.sessionId !== null ? old.session.sessionId : undefined;
    await this.end();
    // A resumed conversation keeps adding to its usage (a CLI carries the session's total over).
    if (resumed !== undefined && old !== null) this.earlier.pop();
    this.start(provider, model, resumed, cwd, resumed !== undefined && old !== null ? old.usage : undefined);
  }

  /** The folder a stored session ran in (its CLI may keep sessions by folder), or undefined. */
  private async resumedCwd(resume: ResumeTarget): Promise<string | undefined> {
    const refs = await listCliSessions({ provider: resume.provider, env: this.terminal.env }).catch(() => []);
    return refs.find((ref) => ref.id === resume.id)?.cwd ?? undefined;
  }

  // ---- turns --------------------------------------------------------------------------------

  private async turn(text: string): Promise<void> {
    const conversation = this.current;
    if (conversation === null || conversation.ended) {
      this.screen.line(this.colors.red('The session has ended: /new starts another.'));
      return;
    }
    const over = new Promise<void>((resolve) => (this.turnOver = resolve));
    this.ctrlCs = 0;
    this.screen.startTurn(() => this.ctrlC(), WORKING);
    conversation.session.send(text).catch((error: Error) => {
      this.screen.line(this.colors.red(`✗ ${error.message}`));
      this.endTurn();
    });
    await over;
    this.screen.endTurn();
  }

  private endTurn(): void {
    const over = this.turnOver;
    this.turnOver = null;
    over?.();
  }

  /** Ctrl-C during a turn: the first interrupts it, the second leaves. */
  private ctrlC(): void {
    this.ctrlCs++;
    if (this.ctrlCs > 1) return this.leave();
    this.screen.setStatus('interrupting · Ctrl-C again leaves');
    void this.current?.session.interrupt();
  }

  /** Leaves: the session is closed, which ends a turn under way. */
  private leave(): void {
    this.leaving = true;
    this.screen.endLineRead();
    void this.current?.session.close();
  }

  // ---- slash commands -----------------------------------------------------------------------

  private async command(name: ChatCommandName, arg: string | null, cwd: string | undefined): Promise<void> {
    const c = this.colors;
    const conversation = this.current;
    switch (name) {
      case 'help':
        return this.screen.write(`${chatHelp().join('\n')}\n`);
      case 'exit':
        this.leaving = true;
        return;
      case 'cost':
        return this.cost();
      case 'new':
        if (conversation) await this.restart(conversation.provider, conversation.model, cwd, false);
        return;
      case 'cli':
        return this.cli(arg, cwd);
      case 'model':
        if (conversation === null) return this.screen.line(c.red('No session: /new starts one.'));
        return arg === null ? this.models(conversation) : this.switchModel(conversation, arg, cwd);
    }
  }

  /** `/cost`: the chat's tokens and cost so far, by the usage rules. */
  private cost(): void {
    const sessions = [...this.earlier, ...(this.current ? [this.current.usage] : [])];
    const totals = sessions.map((usage) => usage.total).filter((total): total is UsageFigures => total !== null);
    const total = totals.length === 0 ? null : totals.reduce(addUsage);
    const sessionsSaid = sessions.length === 1 ? '' : ` (${sessions.length} sessions)`;
    this.screen.line(`This chat${sessionsSaid}: ${usageParts(total, this.colors).join(this.colors.dim(' · '))}`);
  }

  /** `/cli [P]`: the CLIs found here, or a new session with P. */
  private async cli(arg: string | null, cwd: string | undefined): Promise<void> {
    const installed = installedClis();
    const current = this.current?.provider;
    if (arg === null) return this.screen.write(`${['CLIs found here:', ...cliOffer(installed, current)].join('\n')}\n`);
    const chosen = parseCliChoice(arg, installed);
    if (chosen === null) return this.screen.line(this.colors.red(`No CLI ${arg} here: /cli lists those found on PATH.`));
    await this.restart(chosen, null, cwd, false);
  }

  /** `/model`: the current model and those offered. */
  private async models(conversation: Conversation): Promise<void> {
    const listed = await listedModels(conversation.session);
    const choices = modelChoices(conversation.provider, listed);
    const lines = [`Model: ${conversation.model ?? "the CLI's default"}`];
    if (choices.length > 0)
      lines.push('Offered:', ...choices.map((model) => `  ${model.id}${model.name !== model.id ? ` (${model.name})` : ''}`));
    if (modelSwitch(conversation.provider) === null)
      lines.push(this.colors.dim(`${CLIS[conversation.provider].name} cannot switch its model in a session.`));
    this.screen.write(`${lines.join('\n')}\n`);
  }

  /** `/model M`: in the running session where the CLI can, else in a new one that resumes it. */
  private async switchModel(conversation: Conversation, model: string, cwd: string | undefined): Promise<void> {
    const c = this.colors;
    const how = conversation.ended ? 'resume' : modelSwitch(conversation.provider);
    if (how === null)
      return this.screen.line(
        c.red(`${CLIS[conversation.provider].name} cannot switch its model in a session: start the chat with --model.`),
      );
    if (how === 'resume') {
      await this.restart(conversation.provider, model, cwd, true);
      return;
    }
    try {
      await conversation.session.setModel(model);
    } catch (error) {
      return this.screen.line(c.red(`✗ ${(error as Error).message}`));
    }
    conversation.model = model;
    this.screen.line(`Model: ${model} from the next turn.`);
  }

  // ---- choosing a CLI -----------------------------------------------------------------------

  /** No provider given: the CLIs found on PATH are offered (one alone is taken); null when none is, or the user left. */
  private async chooseCli(): Promise<SessionProvider | null> {
    const installed = installedClis();
    if (installed.length === 0) {
      this.screen.line(this.colors.red(`${noCliFound()}.`));
      return null;
    }
    if (installed.length === 1) return installed[0];
    this.screen.write(`${['CLIs found here:', ...cliOffer(installed)].join('\n')}\n`);
    for (;;) {
      const read = await this.screen.readLine(`Which one? [1] `);
      if (read.kind !== 'line') {
        this.leaving = true;
        return null;
      }
      const chosen = parseCliChoice(read.text, installed, installed[0]);
      if (chosen !== null) return chosen;
      this.screen.line(this.colors.red(`Answer a number from 1 to ${installed.length}, or a name.`));
    }
  }
}
