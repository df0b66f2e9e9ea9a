import { describe, expect, it } from "vitest";
import { isPostgresUrl, maskUrl } from "./store-url.js";

describe("store URLs", () => {
  it("recognise postgres:// and postgresql://", () => {
    expect(isPostgresUrl("postgres://db.example/uwf")).toBe(true);
    expect(isPostgresUrl("postgresql://db.example/uwf")).toBe(true);
    expect(isPostgresUrl("fs")).toBe(false);
    expect(isPostgresUrl("/home/me/.uwf")).toBe(false);
  });

  it("never show a password, in the user part or in a parameter", () => {
    expect(maskUrl("postgres://ci:hunter2@db.example:5432/uwf")).toBe(
      "postgres://ci:****@db.example:5432/uwf",
    );
    expect(maskUrl("postgres://ci@db.example/uwf?password=hunter2&sslmode=require")).toBe(
      "postgres://ci@db.example/uwf?password=****&sslmode=require",
    );
    expect(maskUrl("postgres://db.example/uwf")).toBe("postgres://db.example/uwf");
    expect(maskUrl("postgres://ci:hunter2@db example/uwf")).not.toContain("hunter2");
  });
});
