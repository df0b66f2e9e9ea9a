import type { CasNode, ThreadProblem } from "@united-workforce/protocol";
import type { Cas } from "@united-workforce/store";
import { errorMessage, isUwfError } from "@united-workforce/util";

/**
 * Why a node is bad. Kinds: `corrupt` (its bytes do not hash to its name or do not decode),
 * `missing` (not stored), `invalid` (its payload breaks its type's schema), `link` (it points
 * where it must not), `route` (the moderator would not have sent the thread to this step's role).
 */
export class NodeFault extends Error {
  constructor(
    readonly kind: ThreadProblem["kind"],
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads nodes, re-hashing them (the CAS does on every read) and validating each against its
 * type's schema. Remembers which hashes passed or failed, not the nodes, so a thread of any
 * length is checked in flat memory.
 */
export class NodeChecker {
  readonly #passed = new Set<string>();
  readonly #failed = new Map<string, NodeFault>();

  constructor(private readonly cas: Cas) {}

  get count(): number {
    return this.#passed.size + this.#failed.size;
  }

  /** The payload of a node that must be of type `type`, or one of them (any when undefined). */
  async payload<T>(hash: string, type: string | readonly string[] | undefined): Promise<T> {
    const node = await this.node(hash);
    const types = typeof type === "string" ? [type] : type;
    if (types !== undefined && !types.includes(node.type)) {
      throw new NodeFault(
        "link",
        `node ${hash} has type ${node.type}, expected ${types.join(" or ")}`,
      );
    }
    return node.payload as T;
  }

  /** The faults of `root` and every node it reaches that was not checked before. */
  async tree(root: string): Promise<{ hash: string; error: NodeFault }[]> {
    const faults: { hash: string; error: NodeFault }[] = [];
    const queue = [root];
    while (queue.length > 0) {
      const hash = queue.shift()!;
      if (this.#passed.has(hash) || this.#failed.has(hash)) continue;
      try {
        queue.push(...(await this.cas.refsOf(await this.node(hash))));
      } catch (error) {
        faults.push({ hash, error: error as NodeFault });
      }
    }
    return faults;
  }

  async node(hash: string): Promise<CasNode> {
    const failed = this.#failed.get(hash);
    if (failed) throw failed;
    try {
      const node = await this.#read(hash);
      this.#passed.add(hash);
      return node;
    } catch (error) {
      const fault =
        error instanceof NodeFault ? error : new NodeFault("corrupt", errorMessage(error));
      this.#failed.set(hash, fault);
      throw fault;
    }
  }

  async #read(hash: string): Promise<CasNode> {
    let node: CasNode;
    try {
      node = await this.cas.get(hash);
    } catch (error) {
      if (isUwfError(error) && error.code === "CAS_NOT_FOUND") {
        throw new NodeFault("missing", `node ${hash} is not stored`);
      }
      throw new NodeFault("corrupt", `node ${hash}: ${errorMessage(error)}`);
    }
    if (node.type !== "schema") {
      const { valid, errors } = await this.cas.validate(node.type, node.payload);
      if (!valid) {
        throw new NodeFault("invalid", `node ${hash} breaks its schema: ${errors.join("; ")}`);
      }
    }
    return node;
  }
}

/** A node points where it must not. */
export function link(reason: string): NodeFault {
  return new NodeFault("link", reason);
}

/** A problem's kind and reason, from a fault or any other error (a corrupt read). */
export function describeFault(error: unknown): Pick<ThreadProblem, "kind" | "reason"> {
  if (error instanceof NodeFault) return { kind: error.kind, reason: error.message };
  return { kind: "corrupt", reason: errorMessage(error) };
}
