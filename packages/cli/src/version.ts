import { packageVersion } from "@united-workforce/util";

export const VERSION: string = packageVersion(() => import.meta.url);
