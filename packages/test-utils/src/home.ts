import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const TEMP_PREFIX = "uwf-test-";

export interface TempHome {
  /** A fresh, empty directory to use as UWF_HOME (and HOME) of the process under test. */
  home: string;
  cleanup: () => void;
}

/** A new temp directory; its real path, so paths printed by children compare equal. */
export function tempHome(): TempHome {
  const home = realpathSync(mkdtempSync(join(tmpdir(), TEMP_PREFIX)));
  return { home, cleanup: () => rmSync(home, { recursive: true, force: true }) };
}
