// State of mind entries as logged on the phone: a few momentary emotions and,
// most evenings, a daily mood, each with a valence in [-1, 1], the band it
// falls in, feelings that fit its sign and what it relates to.
import { atHour, randomFor, round, type DemoDay } from './day.js';
import { uuidFromName } from './ids.js';
import type { Random } from './random.js';

export interface MoodEntry {
  uuid: string;
  loggedAtMs: number;
  kind: 'momentaryEmotion' | 'dailyMood';
  valence: number;
  classification: string;
  labels: string[];
  associations: string[];
}

// Seven equal bands over [-1, 1], from very unpleasant to very pleasant.
const BANDS = ['veryUnpleasant', 'unpleasant', 'slightlyUnpleasant', 'neutral', 'slightlyPleasant', 'pleasant', 'veryPleasant'] as const;

function valenceClassification(valence: number): string {
  return BANDS[Math.min(6, Math.floor(((valence + 1) * 7) / 2))];
}

const PLEASANT = ['amazed', 'amused', 'calm', 'confident', 'content', 'excited', 'grateful', 'happy', 'hopeful', 'joyful', 'peaceful', 'proud', 'relieved', 'satisfied'];
const UNPLEASANT = ['angry', 'annoyed', 'anxious', 'disappointed', 'discouraged', 'drained', 'frustrated', 'irritated', 'lonely', 'overwhelmed', 'sad', 'stressed', 'worried'];
const NEUTRAL = ['calm', 'content', 'indifferent', 'peaceful', 'drained'];
const ASSOCIATIONS = ['community', 'currentEvents', 'dating', 'education', 'family', 'fitness', 'friends', 'health', 'hobbies', 'identity', 'money', 'partner', 'selfCare', 'spirituality', 'tasks', 'travel', 'weather', 'work'];

export function moodEntries(day: DemoDay): MoodEntry[] {
  const random = randomFor(day, 'mind');
  const dayMood = random.normal(day.persona.moodBaseline, 0.2);
  const entries: MoodEntry[] = [];
  const add = (kind: MoodEntry['kind'], loggedAtMs: number, spread: number) => {
    const valence = round(Math.max(-1, Math.min(1, random.normal(dayMood, spread))), 2);
    entries.push({
      uuid: uuidFromName(`mood/${day.seed}/${day.persona.index}/${day.day}/${entries.length}`),
      loggedAtMs,
      kind,
      valence,
      classification: valenceClassification(valence),
      labels: distinct(random, valence > 0.15 ? PLEASANT : valence < -0.15 ? UNPLEASANT : NEUTRAL, random.int(1, 3)),
      associations: distinct(random, ASSOCIATIONS, random.int(1, 2)),
    });
  };
  for (let n = random.weighted([[0, 4], [1, 4], [2, 2]] as const); n > 0; n--) {
    add('momentaryEmotion', atHour(day, random.between(9, 19) + entries.length * 0.1), 0.3);
  }
  entries.sort((a, b) => a.loggedAtMs - b.loggedAtMs);
  if (random.chance(0.65)) add('dailyMood', atHour(day, random.between(20, 21.5)), 0.1);
  return entries;
}

function distinct(random: Random, pool: readonly string[], count: number): string[] {
  const picked = new Set<string>();
  while (picked.size < count) picked.add(random.pick(pool));
  return [...picked];
}
