import { isoTime } from "@united-workforce/util";
import type { ChildIdentity, HolderIdentity, Lease, LeaseInfo } from "../api.js";
import { unlinkQuietly } from "../fs/files.js";
import { lostError } from "./errors.js";
import { readLeaseFile, replaceFile } from "./lease-file.js";
import { Renewal } from "./liveness.js";

/**
 * A held lease, as a lease file this process rewrites while the token in it is still its own:
 * renewed in the background while this process holds it, handed over by `transfer`.
 */
export class FsLease implements Lease {
  readonly thread: string;
  readonly #path: string;
  readonly #host: string;
  readonly #ttlMs: number;
  readonly #renewal: Renewal;
  #info: LeaseInfo;
  #released = false;

  constructor(path: string, info: LeaseInfo, host: string, ttlMs: number) {
    this.thread = info.thread;
    this.#path = path;
    this.#info = structuredClone(info);
    this.#host = host;
    this.#ttlMs = ttlMs;
    this.#renewal = new Renewal(ttlMs, () => this.renew());
    if (info.holder.host === host && info.holder.pid === process.pid) this.#renewal.start();
  }

  get token(): string {
    return this.#info.token;
  }

  info(): LeaseInfo {
    return structuredClone(this.#info);
  }

  async renew(): Promise<void> {
    this.#rewrite({
      ...this.#info,
      expiresAt: isoTime(Date.now() + this.#ttlMs),
    });
  }

  async setChild(child: ChildIdentity | null): Promise<void> {
    this.#rewrite({ ...this.#info, child: child && { ...child } });
  }

  async transfer(holder: HolderIdentity): Promise<void> {
    this.#rewrite({
      ...this.#info,
      holder: { ...holder },
      expiresAt: isoTime(Date.now() + this.#ttlMs),
    });
    if (holder.host === this.#host && holder.pid === process.pid) {
      this.#renewal.start();
    } else {
      // The lease is the new holder's now: this handle must not renew or release it.
      this.#renewal.stop();
      this.#released = true;
    }
  }

  async release(): Promise<void> {
    this.#renewal.stop();
    if (this.#released) return;
    this.#released = true;
    const state = readLeaseFile(this.#path, this.thread, () => this.#host);
    if (state.kind === "valid" && state.info.token === this.#info.token) unlinkQuietly(this.#path);
  }

  #rewrite(next: LeaseInfo): void {
    const state = readLeaseFile(this.#path, this.thread, () => this.#host);
    if (this.#released || state.kind !== "valid" || state.info.token !== this.#info.token) {
      this.#renewal.stop();
      throw lostError(this.thread, "another process considered this one gone and took the thread");
    }
    replaceFile(this.#path, next);
    this.#info = next;
  }
}
