import { docsUrl, errorMessage, packageVersion, UwfError } from "@united-workforce/util";
import type { PostgresBackend } from "./api.js";
import { maskUrl } from "./store-url.js";

/** The package that holds the PostgreSQL backend (and the `pg` driver). */
const POSTGRES_PACKAGE = "@united-workforce/store-postgres";

/**
 * The PostgreSQL backend, through the loader the caller gave (`StoreOptions.backends`). Fails
 * with STORE_BACKEND_MISSING, saying how to install the package, when it is not installed or the
 * program was given no way to load it.
 */
export async function loadPostgresBackend(
  url: string,
  load: (() => Promise<PostgresBackend>) | undefined,
): Promise<PostgresBackend> {
  const store = `the store ${maskUrl(url)} is PostgreSQL`;
  if (load === undefined) {
    throw new UwfError("STORE_BACKEND_MISSING", `${store}, and this program cannot load it`, {
      hint: `pass openStore \`backends: { postgres: () => import("${POSTGRES_PACKAGE}") }\`, with ${POSTGRES_PACKAGE} installed`,
    });
  }
  try {
    return await load();
  } catch (error) {
    if (isNotFound(error, POSTGRES_PACKAGE)) {
      throw new UwfError(
        "STORE_BACKEND_MISSING",
        `${store}, and ${POSTGRES_PACKAGE} is not installed`,
        {
          hint: `install it beside uwf: \`npm run install-cli -- --postgres\` in the checkout uwf was installed from (once published: \`${installCommand()}\`) (${docsUrl("postgres.md")})`,
        },
      );
    }
    throw new UwfError(
      "STORE_BACKEND_MISSING",
      `cannot load ${POSTGRES_PACKAGE}: ${errorMessage(error)}`,
      {
        hint: `reinstall it: \`${installCommand()}\``,
        cause: error,
      },
    );
  }
}

/** The install that matches this uwf: the backend's version is uwf's (one version for all). */
function installCommand(): string {
  return `npm install -g ${POSTGRES_PACKAGE}@${packageVersion(() => import.meta.url)}`;
}

/** Whether `error` is Node's "cannot find package `name`" (not a module missing inside it). */
function isNotFound(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    new RegExp(`['"]${name.replace(/[/.]/g, "\\$&")}['"/]`).test(errorMessage(error))
  );
}
