/**
 * Edit distance counting a swap of two neighbours as one edit, as typists make them (optimal
 * string alignment): with plain Levenshtein `tyep` is as far from `then` as from `type`, and
 * `!incldue` two edits from `!include`. For "did you mean" suggestions.
 */
export function editDistance(a: string, b: string): number {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      let distance = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + Number(a[i - 1] !== b[j - 1]),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, before[j - 2]! + 1);
      }
      current.push(distance);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The word of `candidates` that `word` most likely misspells, for "did you mean": ignoring
 * case, at most two edits and fewer than the word's own length (so `ab` is not "corrected" to
 * `if`); undefined when none is that near.
 */
export function nearestWord(word: string, candidates: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: string | undefined;
  let bestDistance = Math.min(3, word.length);
  for (const candidate of candidates) {
    if (candidate === word) continue;
    // Lengths apart by more than the limit cannot be near; this also keeps a huge key cheap.
    if (Math.abs(candidate.length - lower.length) >= bestDistance) continue;
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
