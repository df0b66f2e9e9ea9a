import { UwfError } from "@united-workforce/util";

const UNITS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** An age like `30s`, `5m`, `24h`, `7d`, `2w` (or `0`) in milliseconds; null if it is not one. */
export function ageMs(value: string): number | null {
  const text = value.trim();
  if (text === "0") return 0;
  const age = /^(\d+)([smhdw])$/.exec(text);
  return age ? Number(age[1]) * UNITS[age[2]!]! : null;
}

/** An ISO time, or an age (`7d`, `24h`, `30m`) meaning that long before now. */
export function parseTime(value: string, now: number, flag: string): number {
  const age = ageMs(value);
  if (age !== null) return now - age;
  const time = Date.parse(value);
  if (Number.isNaN(time)) {
    throw new UwfError(
      "USAGE",
      `${flag} "${value}" is neither an ISO time nor an age like 7d, 24h, 30m`,
      {
        hint: `e.g. ${flag} 7d or ${flag} 2026-01-31T00:00:00Z`,
      },
    );
  }
  return time;
}

/** A duration flag: an age like 30s, 5m, 1h, or 0. */
export function parseAge(value: string, flag: string): number {
  const age = ageMs(value);
  if (age === null) {
    throw new UwfError("USAGE", `${flag} "${value}" is not an age like 30s, 5m, 1h or 0`, {
      hint: `e.g. ${flag} 10m`,
    });
  }
  return age;
}
