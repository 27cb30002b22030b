/**
 * A kept map layout with its text already drawn as outlines, so a new state is rasterized without
 * shaping any text. Shaping the labels (rustybuzz, per text span) was most of resvg's time for a map
 * state (about 16 of 19 ms for 12 nodes, quiet machine), and it gave the same glyphs every time: a
 * state changes only colours and each node's marks. So, once per structure, resvg outlines the
 * sentinel-coloured SVG (plan-layout.ts) once per distinct marks string (7: "▶", "▶ ✓", "▶ ~", "✓",
 * "~", "•", "○"), and each node's text paths are cut out of each outline by their sentinel colour.
 * A state is then the first outline with each box's colours and each node's text for its marks put
 * back: plain paths, which resvg parses and fills in a few ms with no font files loaded.
 *
 * resvg's outline writes coordinates to about 6 significant digits: the picture differs from drawing
 * the text directly in a few hundred anti-aliased edge pixels by at most a few levels, never in
 * shape or colour. Outlines whose structure differs between marks strings (something other than
 * the node texts moved) are refused: the caller draws from the text template as before.
 */

import type { DerivedPlanStatuses } from "../core/contracts/plan.ts";
import { type NodeMastery, nodeMastery, type PlanMastery } from "../core/mastery.ts";
import { type MapTemplate, sentinelMapSvg } from "./plan-layout.ts";
import { PLAN_COLORS, PLAN_KINDS, type PlanNodeKind, planNodeKind, planNodeMarks } from "./plan-style.ts";

const NODE_MASTERIES: readonly NodeMastery[] = ["learned", "shaky", "not-yet"];

/** Every marks string a node can show (kind and mastery), each outlined once per structure. */
export const MARKS_VARIANTS: readonly string[] = [
	...new Set(PLAN_KINDS.flatMap((kind) => NODE_MASTERIES.map((m) => planNodeMarks(kind, m)))),
];

type OutlineSlot = { what: "box"; node: number } | { what: "text"; node: number; run: number };

/** A map laid out and outlined: the first outline cut at each box's paint and each node's text paths. */
export interface OutlinedMap {
	parts: string[];
	slots: OutlineSlot[];
	/** Per marks string, per node: its text runs, each split where its sentinel colour stood. */
	texts: Map<string, Map<number, string[][]>>;
	/** The node ids by their index in the tree. */
	ids: ReadonlyMap<number, string>;
	/** The box outline's width as resvg wrote it for the layout's 1.5 px (a scaled map writes it scaled). */
	strokeWidth: number;
	/** Characters of the outlines it was cut from (its pieces share their memory). */
	chars: number;
}

/** A box's paint in an outline (usvg writes fill, stroke and stroke-width in this order). */
const BOX = /fill="#00([0-9a-f]{4})" stroke="#01\1" stroke-width="([0-9.e+-]+)"/g;
/** Where a glyph run's path of a node's text begins: `<path fill="#02` and the node's four hex digits. */
const TEXT_PATH_START = '<path fill="#02';
const HEX4 = /^[0-9a-f]{4}"/;

/**
 * Each glyph run's path of a node's text: its node and where it starts and ends (`<path fill="#02xxxx" … />`).
 * Found with indexOf, not a pattern: `<path …"[^>]*\/>` backtracked polynomially on paths that never close.
 */
function* textPaths(outline: string): Generator<{ node: number; start: number; end: number }> {
	for (let from = 0; from < outline.length; ) {
		const start = outline.indexOf(TEXT_PATH_START, from);
		if (start < 0) return;
		const digits = outline.slice(start + TEXT_PATH_START.length, start + TEXT_PATH_START.length + 5);
		const close = outline.indexOf(">", start);
		if (close < 0) return;
		from = close + 1;
		if (!HEX4.test(digits) || outline.charAt(close - 1) !== "/") continue;
		yield { node: Number.parseInt(digits.slice(0, 4), 16), start, end: close + 1 };
	}
}

type Run = { node: number; start: number; end: number };

/** Maximal sequences of a node's text paths with only white space between them. */
function textRuns(outline: string): Run[] {
	const runs: Run[] = [];
	for (const { node, start, end } of textPaths(outline)) {
		const last = runs.at(-1);
		if (last !== undefined && last.node === node && outline.slice(last.end, start).trim() === "") last.end = end;
		else runs.push({ node, start, end });
	}
	return runs;
}

/** The outline with each text run replaced by a marker: equal for two marks strings when only node texts differ. */
const skeleton = (outline: string, runs: Run[]): string => {
	let out = "";
	let last = 0;
	for (const run of runs) {
		out += `${outline.slice(last, run.start)}\0${run.node}\0`;
		last = run.end;
	}
	return out + outline.slice(last);
};

/**
 * Outlines `template` (padded by `pad`) once per marks string with `outline` (resvg's text-to-paths
 * SVG writer) and cuts it; undefined when an outline lacks a node's box or text, or outlines differ
 * elsewhere than in node texts.
 */
export async function outlineMap(
	template: MapTemplate,
	pad: number,
	outline: (svg: string) => Promise<string>,
): Promise<OutlinedMap | undefined> {
	const drawn: Array<{ marks: string; svg: string; runs: Run[] }> = [];
	for (const marks of MARKS_VARIANTS) {
		const svg = await outline(sentinelMapSvg(template, marks, pad));
		drawn.push({ marks, svg, runs: textRuns(svg) });
	}
	const [first, ...others] = drawn;
	if (first === undefined) return undefined;
	const frame = skeleton(first.svg, first.runs);
	if (others.some((d) => skeleton(d.svg, d.runs) !== frame)) return undefined;

	// Cut the first outline at every box paint and text run, in document order.
	const cuts: Array<{ start: number; end: number; slot: OutlineSlot }> = [];
	let strokeWidth = Number.NaN;
	const boxed = new Set<number>();
	for (const m of first.svg.matchAll(BOX)) {
		const node = Number.parseInt(m[1] ?? "", 16);
		strokeWidth = Number(m[2]);
		boxed.add(node);
		cuts.push({ start: m.index ?? 0, end: (m.index ?? 0) + m[0].length, slot: { what: "box", node } });
	}
	const runsSoFar = new Map<number, number>();
	for (const r of first.runs) {
		const run = runsSoFar.get(r.node) ?? 0;
		runsSoFar.set(r.node, run + 1);
		cuts.push({ start: r.start, end: r.end, slot: { what: "text", node: r.node, run } });
	}
	for (const i of template.ids.keys()) if (!boxed.has(i) || !runsSoFar.has(i)) return undefined;
	if (!(strokeWidth > 0)) return undefined;
	cuts.sort((a, b) => a.start - b.start);
	const parts: string[] = [];
	let last = 0;
	for (const cut of cuts) {
		if (cut.start < last) return undefined; // a box paint inside a text run: not a map we know
		parts.push(first.svg.slice(last, cut.start));
		last = cut.end;
	}
	parts.push(first.svg.slice(last));

	const texts = new Map<string, Map<number, string[][]>>();
	for (const d of drawn) {
		const byNode = new Map<number, string[][]>();
		for (const r of d.runs) {
			const sentinel = `fill="#02${r.node.toString(16).padStart(4, "0")}"`;
			byNode.set(r.node, [...(byNode.get(r.node) ?? []), d.svg.slice(r.start, r.end).split(sentinel)]);
		}
		texts.set(d.marks, byNode);
	}
	const chars = drawn.reduce((sum, d) => sum + d.svg.length, 0);
	return { parts, slots: cuts.map((c) => c.slot), texts, ids: template.ids, strokeWidth, chars };
}

/** The outlined map in a state's colours and marks: an SVG of paths only (no text, no font needed). */
export function paintOutlinedMap(
	map: OutlinedMap,
	statuses: DerivedPlanStatuses,
	mastery: PlanMastery | undefined,
): string {
	const kinds = new Map<number, PlanNodeKind>();
	const marks = new Map<number, string>();
	for (const [i, id] of map.ids) {
		const kind = planNodeKind(statuses, mastery, id);
		kinds.set(i, kind);
		marks.set(i, planNodeMarks(kind, nodeMastery(mastery, id)));
	}
	let out = "";
	map.slots.forEach((slot, k) => {
		out += map.parts[k] ?? "";
		const kind = kinds.get(slot.node) ?? "upcoming";
		const c = PLAN_COLORS[kind];
		if (slot.what === "box") {
			// The current node's outline is twice the others' (3 px against 1.5 px), as fillMapTemplate draws it.
			const width = kind === "current" ? map.strokeWidth * 2 : map.strokeWidth;
			out += `fill="${c.fill}" stroke="${c.stroke}" stroke-width="${width}"`;
		} else {
			const pieces = map.texts.get(marks.get(slot.node) ?? "")?.get(slot.node)?.[slot.run] ?? [];
			out += pieces.join(`fill="${c.text}"`);
		}
	});
	return out + (map.parts[map.slots.length] ?? "");
}
