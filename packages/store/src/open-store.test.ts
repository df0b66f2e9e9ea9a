import { describe, expect, it } from "vitest";
import { storeOptionsFrom } from "./open-store.js";

describe("storeOptionsFrom", () => {
  it("takes how long a PostgreSQL store is waited on from config.yaml's postgres:", () => {
    const options = storeOptionsFrom("/home", {
      store: "postgres://uwf@db/uwf",
      postgres: {
        connectTimeoutSeconds: 0.5,
        connectAttempts: 5,
        statementTimeoutSeconds: 20,
        lockTimeoutSeconds: 2,
      },
    });
    expect(options.timeouts).toEqual({
      connectTimeoutMs: 500,
      connectAttempts: 5,
      statementTimeoutMs: 20_000,
      lockTimeoutMs: 2_000,
    });
  });

  it("leaves the defaults to the backend when postgres: is absent or empty", () => {
    expect(storeOptionsFrom("/home", {}).timeouts).toBeUndefined();
    expect(storeOptionsFrom("/home", { postgres: null }).timeouts).toBeUndefined();
    expect(storeOptionsFrom("/home", { postgres: { lockTimeoutSeconds: 1 } }).timeouts).toEqual({
      lockTimeoutMs: 1_000,
    });
  });
});
