import { packageVersion } from "@united-workforce/util";

/** The package's version: `uwf-mock --version` and `uwf-replay --version` print it. */
export function mockVersion(): string {
  return packageVersion(() => import.meta.url);
}
