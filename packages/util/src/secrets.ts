/**
 * Telling secrets by their names, and masking them for output: `uwf config list` and `get`,
 * and any message that quotes a value from config.yaml.
 */

// A name is a secret's when it holds one of these words (`OPENAI_KEY`, `MY_AUTH`, `PASS`,
// `sessionToken`) or one of these glued forms (`apikey`, `DBPASSWORD`). `apiKeyEnv` and friends
// hold a variable's name, not its value, so they are not secrets.
const SECRET_WORDS = new Set([
  "key",
  "token",
  "secret",
  "pass",
  "password",
  "passwd",
  "pwd",
  "passphrase",
  "auth",
  "authorization",
  "credential",
  "credentials",
  "cookie",
]);
const SECRET_NAME = /api[-_]?key|token|secret|passw(or)?d|credential|private[-_]?key/i;
/** What a secret, or the secret part of a text, is shown as. */
export const MASK = "****";

// A name that ends in one of these names a place holding the secret, not the secret:
// `SSH_AUTH_SOCK`, `AWS_SHARED_CREDENTIALS_FILE`, `keyPath`.
const PLACE_WORDS = new Set(["file", "path", "dir", "sock", "socket"]);

/** Whether a name (a key, an env variable, a flag, a URL parameter) is a secret's. */
export function isSecretName(name: string): boolean {
  if (/env$/i.test(name)) return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
  if (PLACE_WORDS.has(words.at(-1) ?? "")) return false;
  if (SECRET_NAME.test(name)) return true;
  return words.some((word) => SECRET_WORDS.has(word));
}

/** `sk-…abcd` for a long secret (enough to tell two keys apart), `****` for a short one. */
export function maskSecret(value: string): string {
  return value.length >= 20 ? `${value.slice(0, 3)}…${value.slice(-4)}` : MASK;
}

/**
 * `text` with every occurrence of a known `secret` (the key an adapter sent) replaced by `****`.
 * A model server may echo the key in an error (some repeat the `Authorization` header in a
 * 401), and such errors reach stderr, the thread's suspension reason and the logs. Mask before
 * cutting a message to length: a cut through the key would leave part of it.
 */
export function maskOccurrences(text: string, secret: string | null | undefined): string {
  return secret ? text.split(secret).join(MASK) : text;
}

/** Shorter values of secret-named variables are not searched for: `1`, `true` or a port are no keys. */
const MIN_KNOWN_SECRET = 8;

/**
 * A function that replaces in a text, with `****`, the value of every variable of `env` named
 * like a secret (`GITHUB_TOKEN`, `OPENAI_API_KEY`; 8 characters or longer): what a process run
 * with `env` may print of them on stderr, where uwf shows, logs and stores it.
 */
export function envSecretMasker(
  env: Readonly<Record<string, string | undefined>>,
): (text: string) => string {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_KNOWN_SECRET && isSecretName(name)) {
      secrets.add(value);
    }
  }
  if (secrets.size === 0) return (text) => text;
  // Longest first: one secret may contain another.
  const ordered = [...secrets].sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((masked, secret) => maskOccurrences(masked, secret), text);
}

// The password of a URL's user part: everything up to the authority's last `@`.
const URL_PASSWORD = /(\b[a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:)([^/\s]*)(@)/gi;
// `?api_key=…` / `&password=…` in a URL.
const URL_PARAMETER = /([?&;])([^=&#\s]+)=([^&#\s]*)/g;
// `--api-key=…` or `--token …` inside a command line.
const FLAG_VALUE = /(^|\s)(--?[A-Za-z][\w-]*)(=|\s+)("[^"]*"|'[^']*'|[^\s"']+)/g;
const AUTH_SCHEME = /\b(Bearer|Basic)\s+[^\s"']+/gi;

/** `text` with the password of every URL in it masked: `postgres://u:****@h/db`. */
export function maskUrlPasswords(text: string): string {
  return text.replace(URL_PASSWORD, `$1${MASK}$3`);
}

/** Secrets inside a longer text: URL passwords and parameters, flags' values, bearer tokens. */
export function maskSecretsInText(text: string): string {
  return maskUrlPasswords(text)
    .replace(URL_PARAMETER, (whole, sep: string, name: string) =>
      isSecretName(safeDecode(name)) ? `${sep}${name}=${MASK}` : whole,
    )
    .replace(FLAG_VALUE, (whole, space: string, flag: string, joint: string) =>
      isSecretName(flag.replace(/^-+/, "")) ? `${space}${flag}${joint}${MASK}` : whole,
    )
    .replace(AUTH_SCHEME, `$1 ${MASK}`);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
