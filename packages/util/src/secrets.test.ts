import { describe, expect, it } from "vitest";
import {
  envSecretMasker,
  isSecretName,
  maskOccurrences,
  maskSecret,
  maskSecretsInText,
} from "./secrets.js";

describe("secrets", () => {
  it("knows a secret's name by its words, and not a variable's name", () => {
    for (const name of ["apiKey", "OPENAI_KEY", "PASS", "MY_AUTH", "--api-key", "DBPASSWORD"]) {
      expect(isSecretName(name), name).toBe(true);
    }
    for (const name of ["apiKeyEnv", "MONKEY", "AUTHOR", "PASSAGE", "baseUrl", "model"]) {
      expect(isSecretName(name), name).toBe(false);
    }
  });

  it("does not take a name for a secret's when it names where one is kept", () => {
    for (const name of ["SSH_AUTH_SOCK", "AWS_SHARED_CREDENTIALS_FILE", "keyPath", "SECRETS_DIR"]) {
      expect(isSecretName(name), name).toBe(false);
    }
    for (const name of ["API_KEY_ID", "FILE_TOKEN", "pathSecret"]) {
      expect(isSecretName(name), name).toBe(true);
    }
  });

  it("shows a long key's ends only, a short one not at all", () => {
    expect(maskSecret("sk-proj-0123456789abcdefghij")).toBe("sk-…ghij");
    expect(maskSecret("short-key")).toBe("****");
  });

  it("masks secrets inside a command line, and a URL password holding an @", () => {
    expect(maskSecretsInText("my-agent --token abc --verbose -p x")).toBe(
      "my-agent --token **** --verbose -p x",
    );
    expect(maskSecretsInText("curl -H 'Authorization: Bearer abc123'")).toBe(
      "curl -H 'Authorization: Bearer ****'",
    );
    expect(maskSecretsInText("postgres://u:p@ss@db/uwf")).toBe("postgres://u:****@db/uwf");
  });

  it("replaces every occurrence of a known secret, and leaves text alone without one", () => {
    expect(maskOccurrences("bad key Bearer sk-1; again sk-1", "sk-1")).toBe(
      "bad key Bearer ****; again ****",
    );
    expect(maskOccurrences("no key here", null)).toBe("no key here");
    expect(maskOccurrences("empty key", "")).toBe("empty key");
  });
});

describe("envSecretMasker", () => {
  it("masks the values of secret-named variables of 8 characters or more, longest first", () => {
    const mask = envSecretMasker({
      GITHUB_TOKEN: "ghp_abcdefgh",
      OPENAI_API_KEY: "sk-ghp_abcdefgh-tail",
      OPENAI_API_KEY_ENV: "MY_VARIABLE",
      PORT_TOKEN: "8080",
      HOME: "/home/someone-long",
      UNSET_SECRET: undefined,
    });
    expect(
      mask("a sk-ghp_abcdefgh-tail b ghp_abcdefgh c MY_VARIABLE 8080 /home/someone-long"),
    ).toBe("a **** b **** c MY_VARIABLE 8080 /home/someone-long");
  });

  it("changes nothing when no variable holds a secret", () => {
    expect(envSecretMasker({ PATH: "/usr/bin" })("a /usr/bin b")).toBe("a /usr/bin b");
  });
});
