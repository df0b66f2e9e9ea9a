import type { StoreBackends } from "@united-workforce/store";

/**
 * The stores an adapter opens beyond the filesystem: PostgreSQL, through
 * `@united-workforce/store-postgres`, an optional peer installed by its users only, beside the
 * adapter (docs/postgres.md). A bundled adapter resolves it where it is installed
 * (scripts/bundle.mjs).
 */
export const storeBackends: StoreBackends = {
  postgres: () => import("@united-workforce/store-postgres"),
};
