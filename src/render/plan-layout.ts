/**
 * The lesson map laid out once per structure, coloured per state. The plan tree is structure only
 * (statuses are derived), so a map whose current node moves keeps its layout: Chromium and mermaid
 * lay out a *layout source* once (every node with a mark placeholder and a class of its own whose
 * colours are sentinels naming the node), the SVG becomes a template, and each state fills the
 * template's slots (each node's kind class, box style, text colour and marks) in Node, for resvg
 * to rasterize without Chromium. Nodes keep their layout's size whatever their state (the
 * placeholder is as wide as the widest marks); the current node is drawn with its thicker outline,
 * its colour and its mark, in the regular weight its box was laid out for.
 *
 * A template that does not hold every node's slots (a mermaid whose SVG differs) is refused
 * (undefined): the caller draws that map the old way, a Chromium render per state.
 */

import type { DerivedPlanStatuses, PlanTree } from "../core/contracts/plan.ts";
import { nodeMastery, type PlanMastery } from "../core/mastery.ts";
import { labelLines, layoutOf, mermaidLabel, planLinkLines, uniqueNodes } from "./plan-source.ts";
import { PLAN_COLORS, type PlanNodeKind, planNodeKind, planNodeMarks } from "./plan-style.ts";

/** The mark placeholder of the layout: as wide as the widest marks ("▶ ~"). */
const PLACEHOLDER = "▶~";

const hex4 = (i: number): string => i.toString(16).padStart(4, "0");

/** The mermaid source of a map's layout: each node `n<i>` in class `k<i>` whose colours name it (#00<i>, #01<i>, #02<i>). */
export function planLayoutSource(tree: PlanTree): string {
	const nodes = uniqueNodes(tree);
	const layout = layoutOf(tree);
	const lines = [`flowchart ${layout.direction}`];
	for (const n of nodes)
		lines.push(`  n${n.i}["${labelLines(`${PLACEHOLDER} `, n.title).map(mermaidLabel).join("<br/>")}"]`);
	lines.push(...planLinkLines(layout));
	for (const n of nodes) {
		const h = hex4(n.i);
		lines.push(`  classDef k${n.i} fill:#00${h},stroke:#01${h},color:#02${h},stroke-width:1.5px`);
		lines.push(`  class n${n.i} k${n.i}`);
	}
	return `${lines.join("\n")}\n`;
}

type Slot = { node: number; what: "class" | "box" | "label" | "text" | "mark" };

/** A laid-out map: the SVG cut at its slots. */
export interface MapTemplate {
	/** Literal SVG between the slots (one more than slots). */
	parts: string[];
	slots: Slot[];
	/** The node ids by their index in the tree. */
	ids: Map<number, string>;
	width: number;
	height: number;
}

const SLOT =
	/class="node default k(\d+)"|fill:#00([0-9a-f]{4}) !important;stroke:#01\2 !important;stroke-width:1\.5px !important|color:#02([0-9a-f]{4}) !important|fill:#02([0-9a-f]{4}) !important|>▶~<\/tspan>/g;

/**
 * The template of a laid-out map's SVG (the page's whole picture: diagram and legend); undefined when
 * some node's slots are missing. `svg` is what renderOnPage rasterizes for `planLayoutSource(tree)`.
 */
export function mapTemplate(tree: PlanTree, svg: string): MapTemplate | undefined {
	const parts: string[] = [];
	const slots: Slot[] = [];
	let last = 0;
	let node = -1;
	for (const m of svg.matchAll(SLOT)) {
		let slot: Slot;
		if (m[1] !== undefined) {
			node = Number(m[1]); // the node whose marks come next
			slot = { node, what: "class" };
		} else if (m[2] !== undefined) slot = { node: Number.parseInt(m[2], 16), what: "box" };
		else if (m[3] !== undefined) slot = { node: Number.parseInt(m[3], 16), what: "label" };
		else if (m[4] !== undefined) slot = { node: Number.parseInt(m[4], 16), what: "text" };
		else if (node >= 0) slot = { node, what: "mark" };
		else continue;
		parts.push(svg.slice(last, m.index));
		slots.push(slot);
		last = (m.index ?? 0) + m[0].length;
	}
	parts.push(svg.slice(last));
	const ids = new Map(uniqueNodes(tree).map((n) => [n.i, n.id]));
	for (const i of ids.keys())
		for (const what of ["class", "box", "text", "mark"] as const)
			if (!slots.some((s) => s.node === i && s.what === what)) return undefined;
	const size = /^<svg[^>]*? width="(\d+(?:\.\d+)?)" height="(\d+(?:\.\d+)?)"/.exec(svg);
	if (!size) return undefined;
	return { parts, slots, ids, width: Number(size[1]), height: Number(size[2]) };
}

/** The template filled for a state: each node's kind, colours and marks; `pad` CSS pixels added around it. */
export function fillMapTemplate(
	template: MapTemplate,
	statuses: DerivedPlanStatuses,
	mastery: PlanMastery | undefined,
	pad: number,
): string {
	const kinds = new Map<number, PlanNodeKind>();
	for (const [i, id] of template.ids) kinds.set(i, planNodeKind(statuses, mastery, id));
	return fillSlots(
		template,
		(slot) => {
			const kind = kinds.get(slot.node) ?? "upcoming";
			const c = PLAN_COLORS[kind];
			if (slot.what === "class") return `class="node default ${kind}"`;
			if (slot.what === "box")
				return `fill:${c.fill} !important;stroke:${c.stroke} !important;stroke-width:${kind === "current" ? 3 : 1.5}px !important`;
			if (slot.what === "label") return `color:${c.text} !important`;
			if (slot.what === "text") return `fill:${c.text} !important`;
			return `>${planNodeMarks(kind, nodeMastery(mastery, template.ids.get(slot.node) ?? ""))}</tspan>`;
		},
		pad,
	);
}

/**
 * The template with every node's colours left at its sentinels and `marks` as every node's marks: what
 * map-outline.ts draws as outlines once per marks, to cut each node's text out of.
 */
export function sentinelMapSvg(template: MapTemplate, marks: string, pad: number): string {
	return fillSlots(
		template,
		(slot) => {
			const h = hex4(slot.node);
			if (slot.what === "class") return `class="node default k${slot.node}"`;
			if (slot.what === "box") return `fill:#00${h} !important;stroke:#01${h} !important;stroke-width:1.5px !important`;
			if (slot.what === "label") return `color:#02${h} !important`;
			if (slot.what === "text") return `fill:#02${h} !important`;
			return `>${marks}</tspan>`;
		},
		pad,
	);
}

/** The template's parts joined by what `fill` gives each slot, the root's box grown by `pad` on every side. */
function fillSlots(template: MapTemplate, fill: (slot: Slot) => string, pad: number): string {
	let out = "";
	template.slots.forEach((slot, k) => {
		out += (template.parts[k] ?? "") + fill(slot);
	});
	out += template.parts[template.slots.length] ?? "";
	// The page pads the picture by `pad` on every side: the root's box grows by it.
	const w = template.width + pad * 2;
	const h = template.height + pad * 2;
	return out.replace(
		/^<svg([^>]*?) width="[^"]*" height="[^"]*" viewBox="[^"]*"/,
		`<svg$1 width="${w}" height="${h}" viewBox="${-pad} ${-pad} ${w} ${h}"`,
	);
}
