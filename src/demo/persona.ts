// Who a demo user is: the traits that stay put from day to day (resting heart
// rate, weight, stride, favourite workouts, home) drawn once from the seed, so
// each day's data varies around one believable person.
import { demoUserId } from './ids.js';
import { Random } from './random.js';

export type ActivityType =
  | 'running'
  | 'cycling'
  | 'walking'
  | 'hiking'
  | 'traditionalStrengthTraining'
  | 'swimming'
  | 'yoga'
  | 'swimBikeRun';

export interface Persona {
  index: number;
  userId: string;
  name: string;
  email: string;
  dateOfBirthMs: number;
  biologicalSex: 'female' | 'male' | 'other';
  restingHeartRate: number;
  maxHeartRate: number;
  weightKg: number;
  bodyFat: number;
  strideM: number;
  /** Share of a typical day's walking, about 1 for ~9000 steps. */
  activeness: number;
  moveGoalKcal: number;
  hrvMs: number;
  moodBaseline: number;
  workoutMix: ReadonlyArray<readonly [ActivityType, number]>;
  home: { latitude: number; longitude: number; altitudeM: number };
}

const PEOPLE: ReadonlyArray<readonly [string, Persona['biologicalSex']]> = [
  ['Ada Lovelace', 'female'],
  ['Alan Turing', 'male'],
  ['Grace Hopper', 'female'],
  ['Edsger Dijkstra', 'male'],
  ['Barbara Liskov', 'female'],
  ['Donald Knuth', 'male'],
  ['Frances Allen', 'female'],
  ['Kim Kaleidoscope', 'other'],
  ['Margaret Hamilton', 'female'],
  ['Ken Thompson', 'male'],
];

const HOMES = [
  { latitude: 52.5163, longitude: 13.3777, altitudeM: 34 },
  { latitude: 48.1374, longitude: 11.5755, altitudeM: 519 },
  { latitude: 47.3769, longitude: 8.5417, altitudeM: 408 },
  { latitude: 51.5072, longitude: -0.1276, altitudeM: 11 },
  { latitude: 40.7812, longitude: -73.9665, altitudeM: 40 },
];

const DAY_MS = 86_400_000;

export function persona(seed: number, index: number): Persona {
  const random = Random.named(`${seed}/${index}/persona`);
  const [fullName, biologicalSex] = PEOPLE[index % PEOPLE.length];
  const suffix = index < PEOPLE.length ? '' : ` ${Math.floor(index / PEOPLE.length) + 1}`;
  const name = fullName + suffix;
  const female = biologicalSex === 'female';
  const birthYear = random.int(1960, 2002);
  const birthDayOfYear = random.int(0, 364);
  const restingHeartRate = Math.round(random.between(50, 68));
  return {
    index,
    userId: demoUserId(seed, index),
    name,
    email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.org`,
    dateOfBirthMs: Date.UTC(birthYear, 0, 1) + birthDayOfYear * DAY_MS,
    biologicalSex,
    restingHeartRate,
    maxHeartRate: Math.round(208 - 0.7 * (2026 - birthYear)), // Tanaka's estimate, by age in 2026
    weightKg: female ? random.between(52, 78) : random.between(66, 96),
    bodyFat: female ? random.between(0.2, 0.32) : random.between(0.12, 0.25),
    strideM: female ? random.between(0.64, 0.74) : random.between(0.72, 0.82),
    activeness: random.between(0.7, 1.3),
    moveGoalKcal: random.pick([350, 400, 450, 500, 600, 700]),
    hrvMs: random.between(30, 75),
    moodBaseline: random.between(-0.1, 0.45),
    workoutMix: [
      ['running', random.between(0, 4)],
      ['cycling', random.between(0, 4)],
      ['walking', random.between(1, 3)],
      ['hiking', random.between(0, 1)],
      ['traditionalStrengthTraining', random.between(0, 3)],
      ['swimming', random.between(0, 2)],
      ['yoga', random.between(0, 2)],
      ['swimBikeRun', 0.15],
    ],
    home: random.pick(HOMES),
  };
}
