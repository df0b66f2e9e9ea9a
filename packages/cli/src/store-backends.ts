import type { StoreBackends } from "@united-workforce/store";

/**
 * The stores `uwf` opens beyond the filesystem: PostgreSQL, through
 * `@united-workforce/store-postgres`, an optional peer installed by its users only, beside uwf
 * (docs/postgres.md). The bundle keeps this import out and resolves it where uwf is installed
 * (scripts/bundle.mjs).
 */
export const storeBackends: StoreBackends = {
  postgres: () => import("@united-workforce/store-postgres"),
};
