import 'reflect-metadata';
import { Event } from '../src';
import { corpus } from './corpus';

const lines = corpus(20000);
const objs = lines.map((l) => JSON.parse(l));
const evs = lines.map((l) => Event.fromJSON(l));
const maps = evs.map((e) => e.toJSON());
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) * 1000; };
function t(name: string, f: (i: number) => unknown) {
  const runs: number[] = [];
  for (let r = 0; r < 9; r++) { const s = cpu(); for (let k = 0; k < 3; k++) for (let i = 0; i < lines.length; i++) f(i); runs.push((cpu() - s) / lines.length / 3); }
  runs.sort((a, b) => a - b);
  console.log(name.padEnd(40), Math.round(runs[4]));
}
t('JSON.parse', (i) => JSON.parse(lines[i]));
t('JSON.parse+stringify', (i) => JSON.stringify(JSON.parse(lines[i])));
t('fromJSON', (i) => Event.fromJSON(lines[i]));

t('toJSON', (i) => evs[i].toJSON());
t('stringify(plain obj)', (i) => JSON.stringify(objs[i]));
t('stringify(toJSON output)', (i) => JSON.stringify(maps[i]));
t('stringify(event)', (i) => JSON.stringify(evs[i]));
t('round trip', (i) => JSON.stringify(Event.fromJSON(lines[i])));
t('stringify(e.toJSON())', (i) => JSON.stringify(evs[i].toJSON()));
t('stringify(event) again', (i) => JSON.stringify(evs[i]));
t('stringify(toJSON output) again', (i) => JSON.stringify(maps[i]));
t('toJSON again', (i) => evs[i].toJSON());
