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
const DRAWING_VERSION = "plan-v3";
/** Characters per label line; mermaid's own wrapping (wrappingWidth) stays wider so it never re-wraps ours. */
const LABEL_LINE_CHARS = 24;
const LABEL_MAX_CHARS = 72;
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

/** The drawing's order of things: edges by node index, depths, direction. */
export interface Layout {
	/** Node indexes in declaration order, with known ids only. */
	edges: Array<[number, number]>;
	depth: number[];
	direction: "TD" | "LR";
}

/** Valid, de-duplicated edges and each node's depth (longest prerequisite chain), cycles tolerated. */
export function layoutOf(tree: PlanTree): Layout {
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

/** The mermaid source of the plan picture: one class per node kind (status and mastery), escaped and wrapped labels. */
export function planMermaidSource(tree: PlanTree, statuses: DerivedPlanStatuses, mastery?: PlanMastery): string {
	const nodes = uniqueNodes(tree);
	const { edges, direction } = layoutOf(tree);
	const lines = [`flowchart ${direction}`];
	const byKind: Record<PlanNodeKind, string[]> = { current: [], learned: [], shaky: [], visited: [], upcoming: [] };
	for (const n of nodes) {
		const kind = planNodeKind(statuses, mastery, n.id);
		const marks = kind === "upcoming" ? "" : `${planNodeMarks(kind, nodeMastery(mastery, n.id))} `;
		const text = `${marks}${oneLine(n.title, LABEL_MAX_CHARS)}`;
		const label = wrapWords(text, LABEL_LINE_CHARS).map(mermaidLabel).join("<br/>");
		lines.push(`  n${n.i}["${label}"]`);
		byKind[kind].push(`n${n.i}`);
	}
	for (const [from, to] of edges) lines.push(`  n${from} --> n${to}`);
	if (edges.length > 0) lines.push(`  linkStyle default stroke:${PLAN_EDGE_COLOR},stroke-width:2px`);
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
export function planReadingOrder(tree: PlanTree): Array<{ i: number; id: string; title: string; level: number }> {
	const nodes = uniqueNodes(tree);
	const { edges } = layoutOf(tree);
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
