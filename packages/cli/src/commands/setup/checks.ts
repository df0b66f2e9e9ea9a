import { execFile } from "node:child_process";
import type { CheckResult } from "@united-workforce/protocol";
import { errorMessage, sanitizeTerminalText } from "@united-workforce/util";

/**
 * The checks `uwf setup` and `uwf doctor` share. Each returns one line's worth: what was
 * checked, whether it passed, a short detail, and what to do when it failed. None prints, and
 * none ever puts an API key in its result.
 */

export function passed(name: string, detail: string): CheckResult {
  return { name, ok: true, detail, hint: null };
}

export function failed(name: string, detail: string, hint: string | null): CheckResult {
  return { name, ok: false, detail, hint };
}

/** Passed, but with something to look at: shown as `!`, and it does not fail the run. */
export function warned(name: string, detail: string, hint: string): CheckResult {
  return { name, ok: true, warning: true, detail, hint };
}

/**
 * A provider whose key is read from a variable: is it set, in the environment or the home's
 * `.env` (both already in `env`)? An unset one sends requests without a key, which a local
 * server may accept, so it is a warning, not a failure.
 */
export function checkApiKeyEnv(
  provider: string,
  variable: string,
  env: Record<string, string | undefined>,
  dotenvFile: string,
): CheckResult {
  const name = `provider ${provider}: key`;
  // An empty variable counts as unset, as it does where the key is read (resolveModel).
  if (env[variable]) return passed(name, `$${variable} is set`);
  return warned(
    name,
    `$${variable} is not set, nor in ${dotenvFile}: requests go out without a key`,
    `Set it (export ${variable}=…, or a line ${variable}=… in ${dotenvFile}), or store the key: uwf config set providers.${provider}.apiKey <key>.`,
  );
}

/**
 * Is the provider's base URL answering at all? A GET without credentials: any HTTP status (a
 * 404 or 401 included) proves the host is up and speaks HTTP. An error status is a warning, not
 * a ✓ beside "HTTP 404": many API roots have no page of their own, but a wrong path looks the same.
 */
export async function checkReachable(
  name: string,
  baseUrl: string,
  options: { timeoutMs: number; signal?: AbortSignal },
): Promise<CheckResult> {
  try {
    const status = await withTimeout(options, async (signal) => {
      const response = await fetch(baseUrl, { method: "GET", signal, redirect: "manual" });
      await response.body?.cancel();
      return response.status;
    });
    if (status < 400) return passed(name, `${baseUrl} reachable (HTTP ${status})`);
    return warned(
      name,
      `${baseUrl} answered HTTP ${status}: the host is up, the URL itself is not a page`,
      `Many API roots answer a bare GET so; if steps fail, check the URL (uwf config set ${name.replace(/^provider /, "providers.")}.baseUrl <url>, OpenAI-style ones usually end in /v1).`,
    );
  } catch (error) {
    return failed(
      name,
      unreachable(baseUrl, error, options.timeoutMs),
      `Check the URL (uwf config set ${name.replace(/^provider /, "providers.")}.baseUrl <url>), your network and any proxy.`,
    );
  }
}

/** `work` with a signal aborted after `timeoutMs` (a TimeoutError) or by `options.signal`. */
export async function withTimeout<T>(
  options: { timeoutMs: number; signal?: AbortSignal },
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TimeoutError()), options.timeoutMs);
  const onAbort = () => controller.abort(options.signal?.reason);
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await work(controller.signal);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

class TimeoutError extends Error {}

/** Why `url` did not answer: no answer in time, or the network's reason. */
export function unreachable(url: string, error: unknown, timeoutMs: number): string {
  if (
    error instanceof TimeoutError ||
    (error as { cause?: unknown })?.cause instanceof TimeoutError
  )
    return `no answer from ${url} within ${duration(timeoutMs)}`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? errorMessage(error);
  return `cannot reach ${url}: ${sanitizeTerminalText(String(why))}`;
}

/**
 * The first line `<path> --version` prints, run without a shell and with only PATH and HOME,
 * or null (with the reason) when it does not answer. Never throws.
 */
export function commandVersion(
  path: string,
  env: Record<string, string | undefined>,
  timeoutMs: number,
): Promise<{ version: string | null; problem: string | null }> {
  const minimal: Record<string, string> = {};
  for (const name of ["PATH", "HOME"]) if (env[name] !== undefined) minimal[name] = env[name]!;
  return new Promise((resolve) => {
    execFile(
      path,
      ["--version"],
      { shell: false, env: minimal, timeout: timeoutMs, maxBuffer: 64 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        const line = firstLine(`${stdout}`) ?? firstLine(`${stderr}`);
        if (error) {
          const code = (error as { code?: unknown }).code;
          const why = (error as { killed?: boolean }).killed
            ? `no answer within ${duration(timeoutMs)}`
            : typeof code === "number"
              ? `exit ${code}`
              : String(code ?? error.message);
          resolve({ version: null, problem: `--version failed (${why})` });
        } else {
          resolve({ version: line ?? "", problem: null });
        }
      },
    );
  });
}

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

function firstLine(text: string): string | null {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== "");
  if (line === undefined) return null;
  const clean = sanitizeTerminalText(line.trim());
  return clean.length > 120 ? `${clean.slice(0, 120)}…` : clean;
}
