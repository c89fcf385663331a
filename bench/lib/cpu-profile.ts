// Reads a V8 .cpuprofile (node --cpu-prof) and sums self time per function,
// and per area (our code, pg, uWS/Node internals, JSON, GC, idle), so a missed
// target can be explained from where the server's CPU went.
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileShare {
  name: string;
  share: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Share of the wall time the thread was busy (not idle). */
  busy: number;
  areas: ProfileShare[];
  functions: ProfileShare[];
}

function areaOf(frame: ProfileNode['callFrame']): string {
  const { functionName: fn, url } = frame;
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)') return 'V8/native (program)';
  if (fn === 'stringify' && url === '') return 'JSON.stringify';
  if (fn === 'parse' && url === '') return 'JSON.parse';
  if (url.includes('/node_modules/pg') || url.includes('/node_modules/postgres-')) return 'pg (protocol, row parsing)';
  if (url.includes('/node_modules/piscina')) return 'piscina';
  if (url.includes('/node_modules/uWebSockets.js') || fn === 'end' || fn === 'cork' || fn === 'writeHeader' || fn === 'writeStatus') return 'uWS';
  if (url.includes('/node_modules/')) return 'other dependencies';
  if (url.startsWith('node:')) return 'Node internals';
  if (url.includes('/dist/')) return 'healthd code';
  return url === '' ? 'V8 builtins' : 'other';
}

export async function summarizeProfile(file: string, top = 12): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + (profile.timeDeltas[i] ?? 0));
  let total = 0;
  let idle = 0;
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    total += us;
    const area = areaOf(frame);
    if (area === 'idle') {
      idle += us;
      continue;
    }
    areas.set(area, (areas.get(area) ?? 0) + us);
    const where = frame.url ? ` ${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'}${where}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const busy = total - idle;
  const shares = (m: Map<string, number>) =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, share: busy > 0 ? us / busy : 0 }));
  return { totalMs: total / 1000, busy: total > 0 ? busy / total : 0, areas: shares(areas), functions: shares(functions) };
}
