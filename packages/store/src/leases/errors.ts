import { UwfError } from "@united-workforce/util";
import type { LeaseInfo } from "../api.js";

/** `here`: this store's host; `thread stop` signals the holder, so it works only on its host. */
export function busyError(thread: string, holder: LeaseInfo, here: string): UwfError {
  const { host, pid } = holder.holder;
  const stop =
    host === here
      ? `stop it with \`uwf thread stop ${thread}\``
      : `stop it on ${host}, where it runs, with \`uwf thread stop ${thread}\``;
  return new UwfError(
    "THREAD_BUSY",
    `thread ${thread} is busy: pid ${pid} on ${host} holds its lease (${holder.command}, since ${holder.acquiredAt})`,
    {
      hint: `wait for it with \`uwf thread join ${thread}\` or ${stop}`,
      details: { pid, host, command: holder.command, since: holder.acquiredAt },
    },
  );
}

export function lostError(thread: string, why: string): UwfError {
  return new UwfError(
    "LEASE_LOST",
    `the exec lease of thread ${thread} is no longer ours: ${why}`,
    {
      hint: "another exec owns the thread now; stop here and check it with `uwf thread show`",
      details: { thread },
    },
  );
}
