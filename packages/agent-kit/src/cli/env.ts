/**
 * The environment an agent CLI gets. Never the parent's whole environment: it may hold real
 * `ANTHROPIC_*`/`OPENAI_*` keys, tokens for other services, or settings of another tool that
 * would send the CLI somewhere else. The rule (docs/agents.md):
 *
 * - always: where programs and files are (`PATH`, `HOME`, `TMPDIR`, `USER`, `XDG_*` dirs),
 *   the locale (`LANG`, `LC_*`), how to reach the network (proxy and CA-bundle variables), and
 *   `TERM=dumb` (no colours, spinners or cursor tricks in output we parse);
 * - `passThrough`: variables the adapter copies on purpose when it uses the CLI's own login
 *   and settings (no model alias given), e.g. `CLAUDE_CONFIG_DIR` and `ANTHROPIC_API_KEY`;
 *   a name ending in `*` is a prefix;
 * - `extra`: what the adapter sets itself (a model alias's base URL and key); `undefined`
 *   removes a variable.
 */
export const BASE_ENV_NAMES = [
  "PATH",
  "HOME",
  "TMPDIR",
  "USER",
  "LOGNAME",
  "LANG",
  "LANGUAGE",
  "LC_*",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_CACHE_HOME",
  "XDG_STATE_HOME",
  "XDG_RUNTIME_DIR",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
] as const;

export interface MinimalEnvOptions {
  /** Parent variables copied as they are; `NAME*` matches a prefix. */
  passThrough?: readonly string[];
  /** Set (or, when undefined, removed) after everything else. */
  extra?: Record<string, string | undefined>;
}

export function minimalEnv(
  parent: Record<string, string | undefined>,
  options: MinimalEnvOptions = {},
): Record<string, string> {
  const patterns = [...BASE_ENV_NAMES, ...(options.passThrough ?? [])];
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined && patterns.some((pattern) => matches(pattern, name)))
      env[name] = value;
  }
  env.TERM = "dumb";
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

function matches(pattern: string, name: string): boolean {
  return pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}
