/** A scripted turn that streams 4 characters every 300 ms for six minutes: longer than a test may take, so only a stop ends its run in time. */
export const ENDLESS_STREAM = { slowText: 'This answer streams very slowly, piece by piece. '.repeat(100), delayMs: 300 };
