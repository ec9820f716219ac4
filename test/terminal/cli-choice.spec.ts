import { cliOffer, parseCliChoice } from '../../src/terminal/cli-choice';

describe('the CLIs chat offers when none is named', () => {
  const installed = ['claude', 'codex', 'gemini'] as const;

  it('numbered, by name and id, the current one marked', () => {
    expect(cliOffer(installed, 'codex')).toEqual([
      '   1  Claude Code (claude)',
      '   2  Codex (codex) · current',
      '   3  Gemini CLI (gemini)',
    ]);
  });

  it.each([
    ['1', 'claude'],
    ['3', 'gemini'],
    [' codex ', 'codex'],
    ['Gemini CLI', 'gemini'],
    ['CLAUDE', 'claude'],
  ])('%j picks %s', (answer, id) => {
    expect(parseCliChoice(answer, installed)).toBe(id);
  });

  it('an empty answer picks the fallback (the first, as the prompt says), or nothing without one', () => {
    expect(parseCliChoice('', installed, 'claude')).toBe('claude');
    expect(parseCliChoice('', installed)).toBeNull();
  });

  it.each(['0', '4', 'opencode', 'claude code x'])('%j picks none of them', (answer) => {
    expect(parseCliChoice(answer, installed)).toBeNull();
  });
});
