import { packageVersion } from "@united-workforce/util";

export function builtinVersion(): string {
  return packageVersion(() => import.meta.url);
}
