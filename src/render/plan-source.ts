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
import {
	type DerivedPlanStatuses,
	derivedNodeStatus,
	type PlanNodeStatus,
	type PlanTree,
} from "../core/contracts/plan.ts";

/** Fill colours of the three node classes. `current` is distinctive so a test can find it in the PNG pixels. */
export const PLAN_COLORS = {
	current: { fill: "#f97316", stroke: "#9a3412", text: "#111827" },
	visited: { fill: "#e5e7eb", stroke: "#9ca3af", text: "#6b7280" },
	upcoming: { fill: "#ffffff", stroke: "#374151", text: "#111827" },
} as const;

/** The current node's fill colour (hex). */
export const PLAN_CURRENT_FILL = PLAN_COLORS.current.fill;

/** Bumped when the drawing changes for the same tree, so picture keys change with it. */
const DRAWING_VERSION = "plan-v1";
/** Characters per label line; mermaid's own wrapping (wrappingWidth) stays wider so it never re-wraps ours. */
const LABEL_LINE_CHARS = 24;
const LABEL_MAX_CHARS = 72;
const CAPTION_TITLE_CHARS = 80;

const MARKERS: Record<PlanNodeStatus, string> = { current: "▶", visited: "✓", upcoming: "○" };

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

interface Layout {
	/** Node indexes in declaration order, with known ids only. */
	edges: Array<[number, number]>;
	depth: number[];
	direction: "TD" | "LR";
}

/** Valid, de-duplicated edges and each node's depth (longest prerequisite chain), cycles tolerated. */
function layout(tree: PlanTree): Layout {
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
	const perLevel = new Map<number, number>();
	for (const d of depth) perLevel.set(d, (perLevel.get(d) ?? 0) + 1);
	const widest = Math.max(0, ...perLevel.values());
	const levels = perLevel.size;
	// Top-down reads best; a plan much wider than deep goes left-right so the picture stays bounded in width.
	const direction = widest > 6 && widest > levels * 1.5 ? "LR" : "TD";
	return { edges, depth, direction };
}

/** Nodes with duplicate ids after the first are dropped (the first wins, like the canonicalizer). */
function uniqueNodes(tree: PlanTree): Array<{ i: number; id: string; title: string }> {
	const seen = new Set<string>();
	const out: Array<{ i: number; id: string; title: string }> = [];
	tree.nodes.forEach((n, i) => {
		if (seen.has(n.id)) return;
		seen.add(n.id);
		out.push({ i, id: n.id, title: n.title.trim() === "" ? n.id : n.title });
	});
	return out;
}

/** The mermaid source of the plan picture: one class per status, escaped and wrapped labels. */
export function planMermaidSource(tree: PlanTree, statuses: DerivedPlanStatuses): string {
	const nodes = uniqueNodes(tree);
	const { edges, direction } = layout(tree);
	const lines = [`flowchart ${direction}`];
	const byStatus: Record<PlanNodeStatus, string[]> = { current: [], visited: [], upcoming: [] };
	for (const n of nodes) {
		const status = derivedNodeStatus(statuses, n.id);
		const text = `${status === "upcoming" ? "" : `${MARKERS[status]} `}${oneLine(n.title, LABEL_MAX_CHARS)}`;
		const label = wrapWords(text, LABEL_LINE_CHARS).map(mermaidLabel).join("<br/>");
		lines.push(`  n${n.i}["${label}"]`);
		byStatus[status].push(`n${n.i}`);
	}
	for (const [from, to] of edges) lines.push(`  n${from} --> n${to}`);
	for (const status of ["current", "visited", "upcoming"] as const) {
		const c = PLAN_COLORS[status];
		const weight = status === "current" ? ",stroke-width:3px,font-weight:bold" : ",stroke-width:1.5px";
		lines.push(`  classDef ${status} fill:${c.fill},stroke:${c.stroke},color:${c.text}${weight}`);
		if (byStatus[status].length > 0) lines.push(`  class ${byStatus[status].join(",")} ${status}`);
	}
	return `${lines.join("\n")}\n`;
}

/** A stable hash of what is drawn: equal keys mean an identical picture (adapters skip reposting). */
export function planPictureKey(source: string): string {
	return createHash("sha256").update(DRAWING_VERSION).update("\0").update(source).digest("hex").slice(0, 16);
}

/** The caption posted with the picture, e.g. "Now: Chain rule · 2 of 5 visited". */
export function planCaption(tree: PlanTree, statuses: DerivedPlanStatuses): string {
	const nodes = uniqueNodes(tree);
	const total = nodes.length;
	const current = nodes.find((n) => n.id === statuses.current);
	const visited = nodes.filter((n) => derivedNodeStatus(statuses, n.id) === "visited").length;
	if (current === undefined) return `Lesson map · ${total} ${total === 1 ? "step" : "steps"}`;
	return `Now: ${oneLine(current.title, CAPTION_TITLE_CHARS)} · ${visited} of ${total} visited`;
}

/** A text outline of the plan (indented by prerequisite), the fallback when no picture can be made. */
export function planOutline(tree: PlanTree, statuses: DerivedPlanStatuses): string {
	const nodes = uniqueNodes(tree);
	const { edges } = layout(tree);
	const children = new Map<number, number[]>();
	const hasParent = new Set<number>();
	for (const [from, to] of edges) {
		children.set(from, [...(children.get(from) ?? []), to]);
		hasParent.add(to);
	}
	const byIndex = new Map(nodes.map((n) => [n.i, n]));
	const printed = new Set<number>();
	const out: string[] = [];
	const visit = (i: number, level: number): void => {
		const n = byIndex.get(i);
		if (n === undefined || printed.has(i)) return;
		printed.add(i);
		const status = derivedNodeStatus(statuses, n.id);
		const here = status === "current" ? "  ← now" : "";
		out.push(`${"  ".repeat(Math.min(level, 12))}${MARKERS[status]} ${oneLine(n.title, CAPTION_TITLE_CHARS)}${here}`);
		for (const c of children.get(i) ?? []) visit(c, level + 1);
	};
	for (const n of nodes) if (!hasParent.has(n.i)) visit(n.i, 0);
	for (const n of nodes) visit(n.i, 0); // nodes only reachable through a cycle
	return [planCaption(tree, statuses), ...out].join("\n");
}
