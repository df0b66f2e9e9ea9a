/**
 * An integer with its thousands grouped, `12,345`: what `toLocaleString("en-US")` writes, without
 * it. Its first call loads ICU's number formatting, 11–18 ms, which an exec paid on the step
 * line of every agent that reports tokens. Anything but a safe integer goes to it.
 */
export function groupDigits(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString("en-US");
  const digits = String(Math.abs(value));
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let at = grouped.length; at < digits.length; at += 3)
    grouped += `,${digits.slice(at, at + 3)}`;
  return value < 0 ? `-${grouped}` : grouped;
}
