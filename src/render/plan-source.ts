/**
 * Plan tree + derived statuses -> what we draw: the mermaid source of the
 * picture, its caption, a text outline (the fallback when no picture can be
 * made) and a stable key of the drawing (adapters repost only when it changes).
 *
 * Model-authored titles never reach mermaid as syntax: node ids are ours
 * (n0, n1, ...), and labels are escaped so quotes, brackets, `<script>`, URLs,
 * `%%{init}%%` directives, `%%` comments and emoji draw as text (see `mermaidLabel`).
 */

import { createHash } from "node:crypto";
import type { DerivedPlanStatuses, PlanTree } from "../core/contracts/plan.ts";
import { nodeMastery, type PlanMastery } from "../core/mastery.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../i18n/index.ts";
import {
	legendWords,
	PLAN_COLORS,
	PLAN_EDGE_COLOR,
	PLAN_KINDS,
	type PlanNodeKind,
	planLegendLine,
	planNodeKind,
	planNodeMarks,
} from "./plan-style.ts";

/** Bumped when the drawing changes for the same tree, so picture keys change with it. */
const DRAWING_VERSION = "plan-v4";
const CAPTION_TITLE_CHARS = 80;

/** C0 controls and DEL (newlines, tabs, escapes) have no place in a one-line label. */
const isControl = (ch: string): boolean => {
	const code = ch.codePointAt(0) ?? 0;
	return code < 0x20 || code === 0x7f;
};

/** Escapes one line of a model-authored label for a quoted mermaid label (`n0["..."]`). */
export function mermaidLabel(text: string): string {
	// Mermaid decodes `#name;` entities itself and its SVG-text path handles
	// only amp/lt/gt reliably, so other specials become look-alike characters.
	let out = "";
	const chars = Array.from(text);
	chars.forEach((ch, i) => {
		switch (ch) {
			case "&":
				out += "#amp;";
				break;
			case "<":
				out += "#lt;";
				break;
			case ">":
				out += "#gt;";
				break;
			case '"': {
				const prev = chars[i - 1];
				out += prev === undefined || /[\s([{]/.test(prev) ? "“" : "”";
				break;
			}
			case "`":
				out += "ˋ"; // a backtick would open a mermaid markdown string
				break;
			case "%":
				// Mermaid reads `%%{...}%%` anywhere in the source as a directive (it vanished from the
				// label, applied its config, or broke the parse) and `%%` as a comment: never emit two in a row.
				out += chars[i + 1] === "%" ? "%\u2060" : "%";
				break;
			case "#":
				out += "#"; // followed below by a word joiner when it would read as an entity
				if (/^#\w+;/.test(chars.slice(i, i + 40).join(""))) out += "\u2060";
				break;
			default:
				out += isControl(ch) ? " " : ch;
		}
	});
	return out;
}

/** Collapses whitespace and cuts to `max` characters (code points) with an ellipsis. */
export function oneLine(text: string, max: number): string {
	const flat = text.replace(/\s+/g, " ").trim();
	const chars = Array.from(flat);
	if (chars.length <= max) return flat;
	return `${chars
		.slice(0, max - 1)
		.join("")
		.trimEnd()}…`;
}

/** Wraps text into lines of at most `width` code points, breaking at spaces; longer words are cut. */
export function wrapWords(text: string, width: number): string[] {
	const lines: string[] = [];
	let line = "";
	for (const word of text.split(" ").filter((w) => w !== "")) {
		const pieces: string[] = [];
		const chars = Array.from(word);
		for (let i = 0; i < chars.length; i += width) pieces.push(chars.slice(i, i + width).join(""));
		for (const piece of pieces) {
			const joined = line === "" ? piece : `${line} ${piece}`;
			if (Array.from(joined).length <= width) line = joined;
			else {
				if (line !== "") lines.push(line);
				line = piece;
			}
		}
	}
	if (line !== "") lines.push(line);
	return lines.length > 0 ? lines : [""];
}

/** The drawing's order of things: edges by node index, depths, direction, and the rank each node is drawn in. */
export interface Layout {
	/** Node indexes in declaration order, with known ids only. */
	edges: Array<[number, number]>;
	/** Longest prerequisite chain above each node (by node index). */
	depth: number[];
	direction: "TD" | "LR";
	/** The row each node is drawn in (by node index): its depth, or lower when its level was full. */
	rank: number[];
	/**
	 * Invisible links that hold a node down in its rank (a node of the row above, the node): a level with more
	 * nodes than a phone-width row holds wraps onto the next rows, like a paragraph.
	 */
	holds: Array<[number, number]>;
}

/**
 * Widest map we aim for in CSS pixels, padding included: shown 400 px wide on a phone, its 16 px
 * text stays >= 12 px (16 * 400 / 533); drawn at 2x it is within the 1,100 px cap.
 */
export const MAP_MAX_CSS_WIDTH = 520;
/**
 * Room for nodes side by side in one row. Far less than the map's width: edges that pass a row and
 * dagre's drift (it shifts rows sideways to straighten edges) take the rest. Measured: a budget of
 * 420 let 12- and 40-node maps spread to 709 and 1,019 px; at 340 a level wider than one node
 * becomes an indented column, like an outline, and maps stay within ~500 px.
 */
const ROW_BUDGET_PX = 340;
/** A node's padding in width, both sides (4x chromium.ts MERMAID_CONFIG flowchart.padding) and the space between nodes in a row. */
const NODE_PADDING_PX = 32;
const NODE_SPACING_PX = 30;
/** A generous average advance of a character of 16 px label text (DejaVu Sans: 8.5-8.9 mixed case, 10.4 capitals). */
const CHAR_PX = 9.4;
/** Room a long edge takes where it passes through a row (dagre's edge separation and its stroke). */
const PASSING_EDGE_PX = 24;

/** Characters per label line; mermaid's own wrapping (wrappingWidth) stays wider so it never re-wraps ours. */
export const LABEL_LINE_CHARS = 16;
/** Characters of a title drawn in the map (three lines); the alt text carries titles in full. */
export const LABEL_MAX_CHARS = 48;

/** The lines of a node's label: its marks and title, cut to LABEL_MAX_CHARS and wrapped at LABEL_LINE_CHARS. */
export function labelLines(marks: string, title: string): string[] {
	let text = oneLine(title, LABEL_MAX_CHARS);
	// A cut title ends at a word where one is near ("…difference…", not "…difference quo…").
	const space = text.endsWith("…") ? text.lastIndexOf(" ") : -1;
	if (space > LABEL_MAX_CHARS / 2) text = `${text.slice(0, space)}…`;
	return wrapWords(`${marks}${text}`, LABEL_LINE_CHARS);
}

/** Valid, de-duplicated edges, each node's depth (longest prerequisite chain, cycles tolerated) and its row. */
export function layoutOf(tree: PlanTree): Layout {
	const edges = validEdges(tree);
	// Longest-path depth by relaxation, bounded by the node count so a cycle cannot loop forever.
	const depth = tree.nodes.map(() => 0);
	for (let round = 0; round < tree.nodes.length; round++) {
		let changed = false;
		for (const [from, to] of edges) {
			const d = (depth[from] ?? 0) + 1;
			if (d > (depth[to] ?? 0) && d < tree.nodes.length) {
				depth[to] = d;
				changed = true;
			}
		}
		if (!changed) break;
	}
	// A plan of two levels, one wider than a row holds (a topic and its parts), reads best as a list: left
	// to right, the parts in a column. Anything deeper goes top-down, its wide levels wrapped into rows.
	const levels = new Set(depth).size;
	const widest = Math.max(0, ...[...new Set(depth)].map((d) => depth.filter((x) => x === d).length));
	if (levels <= 2 && widest > 2) return { edges, depth, direction: "LR", rank: depth, holds: [] };
	const { rank, holds } = rowsOf(tree, edges, depth);
	return { edges, depth, direction: "TD", rank, holds };
}

/** The tree's edges by node index: known ids only, no self-loops, no duplicates. */
function validEdges(tree: PlanTree): Array<[number, number]> {
	const index = new Map<string, number>();
	tree.nodes.forEach((n, i) => {
		if (!index.has(n.id)) index.set(n.id, i);
	});
	const seen = new Set<string>();
	const edges: Array<[number, number]> = [];
	for (const e of tree.edges) {
		const from = index.get(e.from);
		const to = index.get(e.to);
		if (from === undefined || to === undefined || from === to) continue;
		const k = `${from}>${to}`;
		if (seen.has(k)) continue;
		seen.add(k);
		edges.push([from, to]);
	}
	return edges;
}

/** The widest node of the map in CSS pixels, estimated from its longest label line (marks included). */
function widestNodePx(tree: PlanTree): number {
	let chars = 0;
	for (const n of uniqueNodes(tree))
		for (const line of labelLines("▶ ~ ", n.title)) chars = Math.max(chars, Array.from(line).length);
	return chars * CHAR_PX + NODE_PADDING_PX;
}

/**
 * Rows of the map, so that it stays within MAP_MAX_CSS_WIDTH (measured, not guaranteed: dagre places the
 * nodes; test/render/phone-pictures.test.ts checks the drawn width). Nodes are placed in reading order
 * (a node once all its prerequisites are placed), each in the first row at or below the one under its
 * prerequisites that still has room: a strand of steps fills rows down, the next strand goes beside
 * it while there is room and under it when not, so strands share columns the way lines share a page.
 * A node placed lower than its prerequisites put it is held there by an invisible link from a node of
 * the row above. An edge that passes through a row takes room in it too.
 */
function rowsOf(
	tree: PlanTree,
	edges: Array<[number, number]>,
	depth: number[],
): { rank: number[]; holds: Array<[number, number]> } {
	const nodeW = widestNodePx(tree);
	const budget = ROW_BUDGET_PX;
	const parents = new Map<number, number[]>();
	for (const [from, to] of edges) parents.set(to, [...(parents.get(to) ?? []), from]);
	const rank = tree.nodes.map(() => 0);
	const placed = new Set<number>();
	const used: number[] = []; // CSS pixels taken in each row
	const firstInRow: number[] = []; // the node a lower one is held from
	const holds: Array<[number, number]> = [];
	const place = (i: number): void => {
		const ups = (parents.get(i) ?? []).filter((p) => placed.has(p));
		const natural = Math.max(0, ...ups.map((p) => (rank[p] ?? 0) + 1));
		let row = natural;
		// A row always takes its first node, however wide: a single node wider than the budget cannot be split.
		while ((used[row] ?? 0) > 0 && (used[row] ?? 0) + NODE_SPACING_PX + nodeW > budget) row++;
		rank[i] = row;
		placed.add(i);
		used[row] = (used[row] ?? 0) + ((used[row] ?? 0) > 0 ? NODE_SPACING_PX + nodeW : nodeW);
		if (firstInRow[row] === undefined) firstInRow[row] = i;
		// Each edge from a prerequisite more than one row up passes through the rows between.
		for (const p of ups) for (let r = (rank[p] ?? 0) + 1; r < row; r++) used[r] = (used[r] ?? 0) + PASSING_EDGE_PX;
		const above = firstInRow[row - 1];
		if (row > natural && above !== undefined) holds.push([above, i]);
	};
	// Reading order, each node once its prerequisites are placed; a cycle's nodes by their depth.
	// (Kahn's algorithm: each edge is looked at once; picking the earliest ready node scans the ready list.)
	const order = planReadingOrder(tree, edges).map((n) => n.i);
	const position = new Map(order.map((i, k) => [i, k]));
	const children = new Map<number, number[]>();
	for (const [from, to] of edges) children.set(from, [...(children.get(from) ?? []), to]);
	const missing = new Map(order.map((i) => [i, new Set(parents.get(i) ?? []).size]));
	const ready = order.filter((i) => missing.get(i) === 0);
	const byDepth = [...order].sort(
		(a, b) => (depth[a] ?? 0) - (depth[b] ?? 0) || (position.get(a) ?? 0) - (position.get(b) ?? 0),
	);
	let stuck = 0;
	while (placed.size < order.length) {
		// The ready node earliest in reading order; with none ready, the shallowest node of a cycle.
		let pick = -1;
		for (let k = 0; k < ready.length; k++)
			if (pick < 0 || (position.get(ready[k] as number) ?? 0) < (position.get(ready[pick] as number) ?? 0)) pick = k;
		let next: number;
		if (pick >= 0) next = ready.splice(pick, 1)[0] as number;
		else {
			while (placed.has(byDepth[stuck] as number)) stuck++;
			next = byDepth[stuck] as number;
		}
		if (placed.has(next)) continue;
		place(next);
		for (const child of new Set(children.get(next) ?? [])) {
			const left = (missing.get(child) ?? 0) - 1;
			missing.set(child, left);
			if (left === 0 && !placed.has(child)) ready.push(child);
		}
	}
	return { rank, holds };
}

/** Nodes with duplicate ids after the first are dropped (the first wins, like the canonicalizer). */
export function uniqueNodes(tree: PlanTree): Array<{ i: number; id: string; title: string }> {
	const seen = new Set<string>();
	const out: Array<{ i: number; id: string; title: string }> = [];
	tree.nodes.forEach((n, i) => {
		if (seen.has(n.id)) return;
		seen.add(n.id);
		out.push({ i, id: n.id, title: n.title.trim() === "" ? n.id : n.title });
	});
	return out;
}

/**
 * The map's links: its edges, then the invisible links that wrap a full row (`~~~`: they place nodes
 * but draw nothing), and the edges' style by index (a default style would draw the invisible ones).
 */
export function planLinkLines(layout: Pick<Layout, "edges" | "holds">): string[] {
	const lines = layout.edges.map(([from, to]) => `  n${from} --> n${to}`);
	for (const [from, to] of layout.holds) lines.push(`  n${from} ~~~ n${to}`);
	if (layout.edges.length > 0) {
		const indexes = layout.edges.map((_, k) => k).join(",");
		lines.push(`  linkStyle ${indexes} stroke:${PLAN_EDGE_COLOR},stroke-width:2px`);
	}
	return lines;
}

/** The mermaid source of the plan picture: one class per node kind (status and mastery), escaped and wrapped labels. */
export function planMermaidSource(tree: PlanTree, statuses: DerivedPlanStatuses, mastery?: PlanMastery): string {
	const nodes = uniqueNodes(tree);
	const layout = layoutOf(tree);
	const lines = [`flowchart ${layout.direction}`];
	const byKind: Record<PlanNodeKind, string[]> = { current: [], learned: [], shaky: [], visited: [], upcoming: [] };
	for (const n of nodes) {
		const kind = planNodeKind(statuses, mastery, n.id);
		const marks = kind === "upcoming" ? "" : `${planNodeMarks(kind, nodeMastery(mastery, n.id))} `;
		lines.push(`  n${n.i}["${labelLines(marks, n.title).map(mermaidLabel).join("<br/>")}"]`);
		byKind[kind].push(`n${n.i}`);
	}
	lines.push(...planLinkLines(layout));
	for (const kind of PLAN_KINDS) {
		const c = PLAN_COLORS[kind];
		const weight = kind === "current" ? ",stroke-width:3px,font-weight:bold" : ",stroke-width:1.5px";
		lines.push(`  classDef ${kind} fill:${c.fill},stroke:${c.stroke},color:${c.text}${weight}`);
		if (byKind[kind].length > 0) lines.push(`  class ${byKind[kind].join(",")} ${kind}`);
	}
	return `${lines.join("\n")}\n`;
}

/** A stable hash of what is drawn: equal keys mean an identical picture (adapters skip reposting). */
export function planPictureKey(source: string): string {
	return createHash("sha256").update(DRAWING_VERSION).update("\0").update(source).digest("hex").slice(0, 16);
}

/** The caption posted with the picture, e.g. "Now: Chain rule · 3 of 5 visited · 2 learned". */
export function planCaption(
	tree: PlanTree,
	statuses: DerivedPlanStatuses,
	mastery?: PlanMastery,
	locale: Locale = DEFAULT_LOCALE,
): string {
	const nodes = uniqueNodes(tree);
	const total = nodes.length;
	const current = nodes.find((n) => n.id === statuses.current);
	const learned = nodes.filter((n) => nodeMastery(mastery, n.id) === "learned").length;
	const tail = learned > 0 ? t(locale, "plan.learnedTail", { count: learned }) : "";
	if (current === undefined) return t(locale, "plan.caption", { steps: tn(locale, "count.steps", total), tail });
	const visited = nodes.filter((n) => n.id !== statuses.current && statuses.visited.has(n.id)).length;
	const title = oneLine(current.title, CAPTION_TITLE_CHARS);
	return t(locale, "plan.captionNow", { title, visited, total, tail });
}

/** Nodes in reading order: each after its prerequisites (depth first from the roots), cycle-only nodes last. */
export function planReadingOrder(
	tree: PlanTree,
	edges: Array<[number, number]> = validEdges(tree),
): Array<{ i: number; id: string; title: string; level: number }> {
	const nodes = uniqueNodes(tree);
	const children = new Map<number, number[]>();
	const hasParent = new Set<number>();
	for (const [from, to] of edges) {
		const list = children.get(from);
		if (list) list.push(to);
		else children.set(from, [to]);
		hasParent.add(to);
	}
	const byIndex = new Map(nodes.map((n) => [n.i, n]));
	const printed = new Set<number>();
	const out: Array<{ i: number; id: string; title: string; level: number }> = [];
	// An explicit stack, not recursion: a 10,000-step chain must not overflow the call stack.
	const walk = (root: number): void => {
		const stack: Array<[number, number]> = [[root, 0]];
		while (stack.length > 0) {
			const [i, level] = stack.pop() as [number, number];
			const n = byIndex.get(i);
			if (n === undefined || printed.has(i)) continue;
			printed.add(i);
			out.push({ ...n, level });
			const next = children.get(i) ?? [];
			for (let k = next.length - 1; k >= 0; k--) stack.push([next[k] as number, level + 1]);
		}
	};
	for (const n of nodes) if (!hasParent.has(n.i)) walk(n.i);
	for (const n of nodes) walk(n.i); // nodes only reachable through a cycle
	return out;
}

/** A text outline of the plan (indented by prerequisite, marked like the picture, with a legend line): the fallback when no picture can be made. */
export function planOutline(
	tree: PlanTree,
	statuses: DerivedPlanStatuses,
	mastery?: PlanMastery,
	locale: Locale = DEFAULT_LOCALE,
): string {
	const words = legendWords(locale);
	const now = t(locale, "plan.outlineNow");
	const out = planReadingOrder(tree).map((n) => {
		const kind = planNodeKind(statuses, mastery, n.id);
		const known = nodeMastery(mastery, n.id);
		const here = kind === "current" ? `  ← ${now}${known === "not-yet" ? "" : ` (${words[known]})`}` : "";
		return `${"  ".repeat(Math.min(n.level, 12))}${planNodeMarks(kind, "not-yet")} ${oneLine(n.title, CAPTION_TITLE_CHARS)}${here}`;
	});
	return [planCaption(tree, statuses, mastery, locale), ...out, planLegendLine(locale)].join("\n");
}
