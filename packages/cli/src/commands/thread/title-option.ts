import { hiddenCharacterNote } from "@united-workforce/protocol";
import { UwfError } from "@united-workforce/util";

/** A title a person typed may be longer than one made from a task, but stays one line. */
const MAX_GIVEN_TITLE = 200;

/** `--title`, for the commands that make a thread. */
export function titleOption(made: string) {
  return {
    flags: "--title <text>",
    type: "string",
    description: `name the thread (default: ${made}); lists, progress and the web view show it`,
  } as const;
}

/**
 * The `--title` given, trimmed; USAGE when it is blank, longer than 200 characters, or holds
 * control or invisible characters (a title is shown on terminals and pages as it is).
 */
export function givenTitle(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const title = String(value).trim();
  const problem =
    title === ""
      ? "is empty"
      : [...title].length > MAX_GIVEN_TITLE
        ? `is longer than ${MAX_GIVEN_TITLE} characters`
        : hiddenCharacterNote(title) === null
          ? null
          : `holds ${hiddenCharacterNote(title)}`;
  if (problem === null) return title;
  throw new UwfError("USAGE", `--title ${problem}`, {
    hint: 'Give a short name on one line, e.g. --title "Fix the login timeout".',
  });
}
