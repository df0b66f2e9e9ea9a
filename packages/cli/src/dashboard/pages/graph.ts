import { END, type Fanout, START, SUSPEND, type WorkflowPayload } from "@united-workforce/protocol";
import { type Html, html } from "../html.js";

/**
 * A workflow's graph as SVG, laid out in layers from top to bottom: `$START` on top, each role
 * one layer below the first role that leads to it (breadth first), `$END` and `$SUSPEND` at the
 * bottom. Edges going down are curves between layers; edges going back up or sideways bend
 * around the right-hand side, so a review loop reads as a loop. Every edge is a link to its
 * entry in the edge list (its prompt) and carries the prompt as a tooltip. A fan-out edge is
 * drawn dashed and thick, labelled with `×` and the list it fans out over; a join role's box
 * is dashed too.
 */

const NODE_W = 150;
const NODE_H = 40;
const GAP_X = 40;
const GAP_Y = 96;
const MARGIN = 24;

export interface GraphEdge {
  from: string;
  status: string;
  to: string;
  prompt: string;
  location: string | null;
  /** The anchor of the edge's entry in the list below the drawing. */
  id: string;
  /** A fan-out edge: its children run `fanout.workflow`, then `to` (the join). */
  fanout: Fanout | null;
}

export function graphEdges(payload: WorkflowPayload): GraphEdge[] {
  const edges: GraphEdge[] = [];
  for (const [from, exits] of Object.entries(payload.graph)) {
    for (const [status, edge] of Object.entries(exits)) {
      edges.push({
        from,
        status,
        to: edge.role,
        prompt: edge.prompt,
        location: edge.location ?? null,
        id: edgeId(from, status),
        fanout: edge.fanout ?? null,
      });
    }
  }
  return edges;
}

/** What a fan-out runs, in words: `one child per item of {{{files}}}, each running <hash>`. */
export function fanoutSummary(fanout: Fanout): string {
  const children = fanout.over === undefined ? "one child" : `one child per item of ${fanout.over}`;
  return `${children}, each running workflow ${fanout.workflow}; concurrency ${fanout.concurrency ?? 4}, failure ${fanout.failure ?? "all"}`;
}

/** The short mark on a fan-out edge: `×files`, or `×1` for a fan-out of one. */
function fanoutMark(fanout: Fanout): string {
  if (fanout.over === undefined) return "\u00d71";
  const path = fanout.over
    .trim()
    .replace(/^\{\{\{?\s*/, "")
    .replace(/\s*\}?\}\}$/, "");
  return `\u00d7${truncate(path, 14)}`;
}

export function edgeId(from: string, status: string): string {
  return `edge-${slug(from)}-${slug(status)}`;
}

function slug(text: string): string {
  return text.replace(/[^A-Za-z0-9_-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`);
}

interface Placed {
  name: string;
  x: number;
  y: number;
  layer: number;
}

export function layout(
  payload: WorkflowPayload,
  edges: GraphEdge[],
): { nodes: Map<string, Placed>; width: number; height: number } {
  const layerOf = new Map<string, number>([[START, 0]]);
  const queue = [START];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const e of edges) {
      if (e.from !== from || e.to === END || e.to === SUSPEND || layerOf.has(e.to)) continue;
      layerOf.set(e.to, layerOf.get(from)! + 1);
      queue.push(e.to);
    }
  }
  let deepest = Math.max(...layerOf.values());
  // Roles $START does not reach still get drawn, below the others.
  const unreachable = Object.keys(payload.roles).filter((r) => !layerOf.has(r));
  if (unreachable.length > 0) deepest++;
  for (const role of unreachable) layerOf.set(role, deepest);
  // `$END` and `$SUSPEND` sit one layer below the deepest role that leads there, so an early
  // question is a short edge rather than a line across the whole drawing.
  for (const t of [END, SUSPEND]) {
    const from = edges.filter((e) => e.to === t).map((e) => layerOf.get(e.from) ?? deepest);
    if (from.length > 0) layerOf.set(t, Math.max(...from) + 1);
  }

  const layers: string[][] = [];
  // Terminals first in their layer: edges going back up pass on the right, clear of them.
  const ordered = [...layerOf].sort(
    ([a], [b]) => Number(!a.startsWith("$")) - Number(!b.startsWith("$")),
  );
  for (const [name, layer] of ordered) {
    const row = layers[layer] ?? [];
    row.push(name);
    layers[layer] = row;
  }
  const widest = Math.max(...layers.map((l) => l?.length ?? 0));
  // Room on the right for edges that go back up.
  const backRoom = edges.some((e) => (layerOf.get(e.to) ?? 0) <= (layerOf.get(e.from) ?? 0))
    ? 90
    : 0;
  const width = MARGIN * 2 + widest * NODE_W + (widest - 1) * GAP_X + backRoom;
  const nodes = new Map<string, Placed>();
  layers.forEach((names, layer) => {
    const rowWidth = names.length * NODE_W + (names.length - 1) * GAP_X;
    const left = (width - backRoom - rowWidth) / 2;
    names.forEach((name, i) => {
      nodes.set(name, {
        name,
        layer,
        x: left + i * (NODE_W + GAP_X),
        y: MARGIN + layer * (NODE_H + GAP_Y),
      });
    });
  });
  const height = MARGIN * 2 + layers.length * NODE_H + (layers.length - 1) * GAP_Y;
  return { nodes, width, height };
}

/** A thread's route to draw over the graph, and where its links go (its workflow's page). */
export interface RouteOverlay {
  /** Edge anchor → times taken. */
  taken: ReadonlyMap<string, number>;
  visited: ReadonlySet<string>;
  current: string | null;
  /** The page the edges and roles link into (the drawing is not on it). */
  linkBase: string;
}

export function graphSvg(
  payload: WorkflowPayload,
  edges: GraphEdge[],
  route: RouteOverlay | null = null,
): Html {
  const { nodes, width, height } = layout(payload, edges);
  const base = route?.linkBase ?? "";
  const pairCount = new Map<string, number>();
  const pairIndex = new Map<GraphEdge, number>();
  for (const e of edges) {
    const key = `${e.from}\u0000${e.to}`;
    pairIndex.set(e, pairCount.get(key) ?? 0);
    pairCount.set(key, (pairCount.get(key) ?? 0) + 1);
  }
  const edgeMarks = edges.map((e) => {
    const a = nodes.get(e.from);
    const b = nodes.get(e.to);
    if (!a || !b) return "";
    const n = pairCount.get(`${e.from}\u0000${e.to}`) ?? 1;
    const spread = ((pairIndex.get(e) ?? 0) - (n - 1) / 2) * 34;
    const { d, lx, ly } = edgePath(a, b, spread, rightmost(nodes, a, b));
    const kind =
      e.fanout !== null ? "fanout" : e.to === SUSPEND ? "suspend" : e.to === END ? "end" : "";
    const times = route?.taken.get(e.id) ?? 0;
    const walked = route === null ? "" : times > 0 ? " taken" : " untaken";
    const status = times > 0 ? `${e.status} \u00b7${times}` : e.status;
    const label = e.fanout === null ? status : `${status} ${fanoutMark(e.fanout)}`;
    const fan = e.fanout === null ? "" : ` (fan-out: ${fanoutSummary(e.fanout)})`;
    const about = `${fan}${times > 0 ? `, taken ${times === 1 ? "once" : `${times} times`}` : ""}`;
    return html`<a href="${base}#${e.id}" class="edge ${kind}${walked}"${route === null ? "" : html` data-taken="${times}"`} aria-label="${e.from} ${e.status} to ${e.to}${about}"><title>${e.from} &rarr; ${e.status} &rarr; ${e.to}${about}: ${e.prompt}</title><path class="hit" d="${d}"/><path d="${d}" marker-end="url(#arrow)"/><text x="${num(lx)}" y="${num(ly)}" text-anchor="middle" class="edge-label" paint-order="stroke">${label}</text></a>`;
  });
  const nodeMarks = [...nodes.values()].map((p) => {
    const special = p.name.startsWith("$");
    const cls =
      p.name === START
        ? "start"
        : p.name === END
          ? "end"
          : p.name === SUSPEND
            ? "suspend"
            : payload.roles[p.name]?.join === true
              ? "role join"
              : "role";
    const here = route?.current === p.name;
    const seen =
      route === null ? "" : here ? " current" : route.visited.has(p.name) ? " visited" : "";
    const label = html`<rect x="${num(p.x)}" y="${num(p.y)}" width="${NODE_W}" height="${NODE_H}" rx="${special ? 20 : 6}"/><text x="${num(p.x + NODE_W / 2)}" y="${num(p.y + NODE_H / 2 + 5)}" text-anchor="middle">${truncate(p.name, 18)}</text>`;
    return special
      ? html`<g class="node ${cls}${seen}"${here ? html` aria-current="step"` : ""}><title>${p.name}${here ? " (the thread is here)" : ""}</title>${label}</g>`
      : html`<a href="${base}#role-${slug(p.name)}" class="node ${cls}${seen}"${here ? html` aria-current="step"` : ""} aria-label="role ${p.name}${here ? ", where the thread is now" : ""}"><title>${p.name}${here ? " (the thread is here)" : ""}</title>${label}</a>`;
  });
  return html`<svg class="graph" viewBox="0 0 ${num(width)} ${num(height)}" width="${num(width)}" height="${num(height)}" role="img" aria-labelledby="graph-title"><title id="graph-title">graph of ${payload.name}</title><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="10" markerHeight="10" markerUnits="userSpaceOnUse" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z"/></marker></defs>${edgeMarks}${nodeMarks}</svg>`;
}

export function roleAnchor(role: string): string {
  return `role-${slug(role)}`;
}

/** The right edge of the drawing between two nodes' layers, for a back edge to swing around. */
function rightmost(nodes: Map<string, Placed>, a: Placed, b: Placed): number {
  const low = Math.min(a.layer, b.layer);
  const high = Math.max(a.layer, b.layer);
  let right = 0;
  for (const p of nodes.values())
    if (p.layer >= low && p.layer <= high) right = Math.max(right, p.x + NODE_W);
  return right;
}

function edgePath(
  a: Placed,
  b: Placed,
  spread: number,
  right: number,
): { d: string; lx: number; ly: number } {
  if (a === b) {
    // A role that routes to itself: a loop on its right side.
    const x = a.x + NODE_W;
    const y = a.y + NODE_H / 2;
    const r = 28 + Math.abs(spread);
    return {
      d: `M${num(x)} ${num(y - 10)}C${num(x + r * 1.6)} ${num(y - r)} ${num(x + r * 1.6)} ${num(y + r)} ${num(x)} ${num(y + 10)}`,
      lx: x + r * 1.3,
      ly: y + 4,
    };
  }
  if (b.layer > a.layer) {
    const x1 = a.x + NODE_W / 2 + spread * 0.6;
    const y1 = a.y + NODE_H;
    const x2 = b.x + NODE_W / 2 + spread * 0.3;
    const y2 = b.y;
    const my = (y1 + y2) / 2;
    return {
      d: `M${num(x1)} ${num(y1)}C${num(x1)} ${num(my)} ${num(x2)} ${num(my)} ${num(x2)} ${num(y2 - 2)}`,
      lx: (x1 + x2) / 2 + spread,
      ly: y1 + (y2 - y1) * (b.layer - a.layer > 1 ? 0.3 : 0.5) + 4,
    };
  }
  // Back or sideways: leave from the right side, swing out, enter the target's right side.
  const x1 = a.x + NODE_W;
  const y1 = a.y + NODE_H / 2 + spread * 0.3;
  const x2 = b.x + NODE_W;
  const y2 = b.y + NODE_H / 2 - spread * 0.3;
  const out = Math.max(x1, x2, right) + 60 + Math.abs(spread);
  return {
    d: `M${num(x1)} ${num(y1)}C${num(out)} ${num(y1)} ${num(out)} ${num(y2)} ${num(x2 + 2)} ${num(y2)}`,
    lx: out - 14,
    ly: (y1 + y2) / 2 + 4,
  };
}

function num(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}\u2026` : text;
}
