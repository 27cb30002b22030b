/**
 * How the lesson map looks: one style per node kind (where the learner is,
 * combined with the node's derived mastery), the marks the text outline and
 * the picture share, the legend, and the WCAG contrast arithmetic the tests
 * use to prove the picture reads on Discord's dark (#313338) and light
 * (#ffffff) themes and Slack's.
 *
 * The picture has a TRANSPARENT background: every node is an opaque chip whose
 * text is dark on a light fill (readable whatever is behind it), whose outline
 * is dark enough for a white page while the light fill itself stands out on a
 * dark one; edges are a mid grey with >= 3:1 against both.
 */

import type { DerivedPlanStatuses } from "../core/contracts/plan.ts";
import { derivedNodeStatus } from "../core/contracts/plan.ts";
import { type NodeMastery, nodeMastery, type PlanMastery } from "../core/mastery.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../i18n/index.ts";

/** What a node is drawn as: current wins, then mastery, then visited; upcoming otherwise. */
export type PlanNodeKind = "current" | "learned" | "shaky" | "visited" | "upcoming";

/** Colours of one node kind (hex). */
export interface PlanNodeStyle {
	fill: string;
	stroke: string;
	text: string;
}

/** Node colours per kind. `current` is distinctive so a test can find it in the PNG pixels. */
export const PLAN_COLORS: Readonly<Record<PlanNodeKind, PlanNodeStyle>> = {
	current: { fill: "#f97316", stroke: "#9a3412", text: "#111827" },
	learned: { fill: "#bbf7d0", stroke: "#15803d", text: "#14532d" },
	shaky: { fill: "#fde68a", stroke: "#b45309", text: "#78350f" },
	visited: { fill: "#d1d5db", stroke: "#6b7280", text: "#374151" },
	upcoming: { fill: "#ffffff", stroke: "#475569", text: "#111827" },
};

/** Edge (and arrowhead) colour: a mid grey with >= 3:1 contrast on white and on Discord's #313338. */
export const PLAN_EDGE_COLOR = "#8b8f97";

/** The backgrounds the picture must read on: Discord dark and light, Slack light and dark. */
export const PLAN_BACKGROUNDS = { discordDark: "#313338", discordLight: "#ffffff", slackDark: "#1a1d21" } as const;

/** Marks before a title, shared by the picture, the outline and the legend ("" = none in the picture). */
export const PLAN_MARKS: Readonly<Record<PlanNodeKind, string>> = {
	current: "▶",
	learned: "✓",
	shaky: "~",
	visited: "•",
	upcoming: "○",
};

/** Legend words per kind in `locale` (visited: been there, no check answered yet). */
export function legendWords(locale: Locale = DEFAULT_LOCALE): Readonly<Record<PlanNodeKind, string>> {
	return {
		current: t(locale, "plan.kind.current"),
		learned: t(locale, "plan.kind.learned"),
		shaky: t(locale, "plan.kind.shaky"),
		visited: t(locale, "plan.kind.visited"),
		upcoming: t(locale, "plan.kind.upcoming"),
	};
}

/** Kinds in legend order. */
export const PLAN_KINDS: readonly PlanNodeKind[] = ["current", "learned", "shaky", "visited", "upcoming"];

/** One legend chip: its label (mark and word) and colours. */
export interface PlanLegendItem extends PlanNodeStyle {
	kind: PlanNodeKind;
	label: string;
}

/** The legend of the picture: one chip per kind, coloured like the nodes. */
export function planLegendItems(locale: Locale = DEFAULT_LOCALE): PlanLegendItem[] {
	const words = legendWords(locale);
	return PLAN_KINDS.map((kind) => ({
		kind,
		label: `${PLAN_MARKS[kind]} ${words[kind]}`,
		...PLAN_COLORS[kind],
	}));
}

/** The legend as one line of text, for outlines. */
export function planLegendLine(locale: Locale = DEFAULT_LOCALE): string {
	const words = legendWords(locale);
	return `${t(locale, "plan.legend")}: ${PLAN_KINDS.map((k) => `${PLAN_MARKS[k]} ${words[k]}`).join(" · ")}`;
}

/** How a node is drawn, from its derived status and mastery. */
export function planNodeKind(
	statuses: DerivedPlanStatuses,
	mastery: PlanMastery | undefined,
	nodeId: string,
): PlanNodeKind {
	const status = derivedNodeStatus(statuses, nodeId);
	if (status === "current") return "current";
	const known: NodeMastery = nodeMastery(mastery, nodeId);
	if (known !== "not-yet") return known;
	return status;
}

/** The mark shown with a node: its kind's, and for the current node also its mastery's ("▶ ~"). */
export function planNodeMarks(kind: PlanNodeKind, mastery: NodeMastery): string {
	if (kind !== "current" || mastery === "not-yet") return PLAN_MARKS[kind];
	return `${PLAN_MARKS.current} ${PLAN_MARKS[mastery]}`;
}

/** Relative luminance of a #rrggbb colour (WCAG 2.x). */
export function relativeLuminance(hex: string): number {
	const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
	if (!m) throw new Error(`not a #rrggbb colour: ${hex}`);
	const [r, g, b] = [m[1], m[2], m[3]].map((h) => {
		const c = Number.parseInt(h ?? "0", 16) / 255;
		return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
	}) as [number, number, number];
	return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two #rrggbb colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
	const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
	return (hi + 0.05) / (lo + 0.05);
}
