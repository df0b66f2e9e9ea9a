import { packageVersion } from "@united-workforce/util";

export function adapterVersion(): string {
  return packageVersion(() => import.meta.url);
}
