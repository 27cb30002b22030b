/**
 * The lesson map as mermaid: parse what models actually write into a
 * canonical PlanTree (structure only), and print a tree back as canonical
 * `graph TD` source. parsePlanMermaid(planToMermaid(t)) gives back t
 * (version and summaries aside). Errors are written for the model: each
 * names the problem and what to do, quoting the offending line.
 */

import Type from "typebox";
import type { PlanEdge, PlanNode, PlanTree } from "./contracts/plan.ts";
import { INPUT_LIMITS } from "./input-limits.ts";

/** Most nodes a plan may have: a lesson map, not a syllabus (and a readable picture). */
export const MAX_PLAN_NODES = 40;
/** Longest source the parser reads (the plan_init schema declares the same ceiling). */
export const MAX_PLAN_SOURCE_CHARS = INPUT_LIMITS.mermaidMaxChars;
/** Characters of a line or label quoted back in an error: enough to find it, not an echo of the input. */
const QUOTE_MAX_CHARS = 120;

/** plan_init input: one mermaid block, at most MAX_PLAN_SOURCE_CHARS long. */
export const planInitInputSchema = Type.Object({
	mermaid: Type.String({
		maxLength: MAX_PLAN_SOURCE_CHARS,
		description:
			"A mermaid `graph TD` block: one node per idea, `id[Short title]` with kebab-case ids " +
			"(e.g. `chain-rule[The chain rule]`), and an edge `a --> b` when a is needed before b. 4-12 nodes.",
	}),
});

/** A parse verdict: the canonical tree, or an error the model can act on. */
export type PlanParseResult = { ok: true; tree: PlanTree } | { ok: false; error: string };

const HEADER = /^(?:graph|flowchart)(?:\s+(TD|TB|LR|RL|BT))?\s*$/i;
const IGNORED = /^(?:classDef|class|style|linkStyle|click|direction|accTitle|accDescr)\b/;
const SUBGRAPH = /^subgraph\b/;
const ID = /^[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*/;
/** Words mermaid reserves: a node with such an id breaks the diagram. */
const RESERVED_IDS = new Set(["end", "graph", "flowchart", "subgraph", "style", "class", "classdef", "click"]);
/** Unlabelled arrows, in the order they are tried (`-.->` before its prefix `-.-`). */
const ARROWS = ["-->", "==>", "-.->", "---", "-.-", "==="] as const;

/** Shapes: opener → closer, longest openers first so `([` wins over `(`. */
const SHAPES: ReadonlyArray<readonly [string, string]> = [
	["([", "])"],
	["[[", "]]"],
	["[(", ")]"],
	["((", "))"],
	["{{", "}}"],
	["[/", "/]"],
	["[\\", "\\]"],
	["[", "]"],
	["(", ")"],
	["{", "}"],
	[">", "]"],
];

interface ParsedNode {
	id: string;
	label?: string;
}

class LineError extends Error {}

/** Cuts text quoted in an error to QUOTE_MAX_CHARS. */
function clip(text: string): string {
	return text.length <= QUOTE_MAX_CHARS ? text : `${text.slice(0, QUOTE_MAX_CHARS)}…`;
}

/** JSON-quotes (clipped) text for an error message. */
const quote = (text: string | undefined): string => JSON.stringify(text === undefined ? text : clip(text));

function decodeEntities(text: string): string {
	return text.replace(/#(quot|35|amp|lt|gt);/g, (_, name: string) =>
		name === "quot" ? '"' : name === "35" ? "#" : name === "amp" ? "&" : name === "lt" ? "<" : ">",
	);
}

function encodeLabel(text: string): string {
	return text.replace(/[#"]/g, (c) => (c === "#" ? "#35;" : "#quot;"));
}

/** Remove a markdown fence around the block, if any. */
function stripFence(source: string): string {
	const fenced = source.trim().match(/^```[\w-]*[ \t]*\n([\s\S]*?)\n?```\s*$/);
	return fenced ? (fenced[1] ?? "") : source;
}

/** Split a line at `;` and cut a `%%` comment, both only outside labels and quotes. */
function statements(line: string): string[] {
	const out: string[] = [];
	let current = "";
	let quoted = false;
	let depth = 0;
	for (let i = 0; i < line.length; i++) {
		const c = line[i]!;
		if (c === '"') quoted = !quoted;
		else if (!quoted && "[({".includes(c)) depth++;
		else if (!quoted && "])}".includes(c)) depth = Math.max(0, depth - 1);
		if (!quoted && depth === 0 && c === "%" && line[i + 1] === "%") break;
		if (!quoted && depth === 0 && c === ";") {
			out.push(current);
			current = "";
			continue;
		}
		current += c;
	}
	out.push(current);
	return out.map((s) => s.trim()).filter((s) => s !== "");
}

/** Read one node (`id` plus an optional shape with a label) at the start of `rest`. */
function readNode(rest: string): { node: ParsedNode; rest: string } {
	const idMatch = rest.match(ID);
	if (!idMatch) throw new LineError("expected a node id (letters, digits, `_` or `-`)");
	const id = idMatch[0];
	let after = rest.slice(id.length);
	const shape = SHAPES.find(([open]) => after.startsWith(open));
	if (!shape) return { node: { id }, rest: after };
	const [open, close] = shape;
	after = after.slice(open.length);
	let label: string;
	const leading = after.match(/^\s*"/);
	if (leading) {
		const start = leading[0].length;
		const end = after.indexOf('"', start);
		if (end < 0) throw new LineError(`the label of \`${clip(id)}\` opens a quote it never closes`);
		label = after.slice(start, end);
		after = after.slice(end + 1).replace(/^\s*/, "");
		if (!after.startsWith(close)) throw new LineError(`the label of \`${clip(id)}\` should end with \`${close}\``);
		after = after.slice(close.length);
	} else {
		const end = after.indexOf(close);
		if (end < 0)
			throw new LineError(`the label of \`${clip(id)}\` opens \`${open}\` and never closes it with \`${close}\``);
		label = after.slice(0, end);
		after = after.slice(end + close.length);
	}
	const text = decodeEntities(label).trim();
	return { node: text === "" ? { id } : { id, label: text }, rest: after };
}

/** Read `a & b` at the start of `rest`. */
function readGroup(rest: string): { nodes: ParsedNode[]; rest: string } {
	const nodes: ParsedNode[] = [];
	let remaining = rest;
	for (;;) {
		const read = readNode(remaining.trimStart());
		nodes.push(read.node);
		const amp = read.rest.match(/^\s*&\s*/);
		if (!amp) return { nodes, rest: read.rest };
		remaining = read.rest.slice(amp[0].length);
	}
}

/** Parse one statement into node groups joined by edges: `a & b --> c --> d`. */
function parseStatement(statement: string): ParsedNode[][] {
	const groups: ParsedNode[][] = [];
	let read = readGroup(statement);
	groups.push(read.nodes);
	for (;;) {
		if (read.rest.trim() === "") return groups;
		const edge = edgeLength(read.rest);
		if (edge < 0) throw new LineError(`unexpected \`${clip(read.rest.trim())}\` (edges are written \`a --> b\`)`);
		read = readGroup(read.rest.slice(edge));
		groups.push(read.nodes);
	}
}

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/.test(c);

/** Index of the first non-space character of `text` at or after `from`. */
function skipSpaces(text: string, from: number): number {
	let i = from;
	while (isSpace(text[i])) i++;
	return i;
}

/**
 * Length of the edge at the start of `rest` (arrow, optional `|text|` label,
 * spaces around), or -1. A scanner, not a regex: the old pattern
 * `--\s+[^|>]*?\s*-->` had three quantifiers that all match spaces, so
 * `a -- ` plus a few thousand spaces backtracked cubically (seconds).
 * Each step here moves forward, so the cost is linear in the edge.
 */
function edgeLength(rest: string): number {
	let i = skipSpaces(rest, 0);
	if (rest.startsWith("--", i) && isSpace(rest[i + 2])) {
		// `-- text -->`: the text may hold neither `|` nor `>`, so the edge ends at the first of them.
		let j = i + 3;
		while (j < rest.length && rest[j] !== "|" && rest[j] !== ">" && rest[j] !== "\n") j++;
		if (rest[j] !== ">" || j - 2 < i + 3 || !rest.startsWith("-->", j - 2)) return -1;
		i = j + 1;
	} else {
		const arrow = ARROWS.find((a) => rest.startsWith(a, i));
		if (arrow === undefined) return -1;
		i += arrow.length;
	}
	const bar = skipSpaces(rest, i);
	if (rest[bar] === "|") {
		const close = rest.indexOf("|", bar + 1);
		if (close >= 0) i = close + 1; // an unclosed `|` is not a label; the next node read will refuse it
	}
	return skipSpaces(rest, i);
}

/** Find one cycle, as a readable path `a -> b -> a`, or undefined. */
function findCycle(nodes: readonly PlanNode[], edges: readonly PlanEdge[]): string | undefined {
	const next = new Map<string, string[]>(nodes.map((n) => [n.id, []]));
	for (const e of edges) next.get(e.from)?.push(e.to);
	const state = new Map<string, "open" | "done">();
	const path: string[] = [];
	const visit = (id: string): string | undefined => {
		state.set(id, "open");
		path.push(id);
		for (const to of next.get(id) ?? []) {
			if (state.get(to) === "open") return [...path.slice(path.indexOf(to)), to].join(" -> ");
			if (!state.has(to)) {
				const found = visit(to);
				if (found) return found;
			}
		}
		path.pop();
		state.set(id, "done");
		return undefined;
	};
	for (const n of nodes) {
		if (!state.has(n.id)) {
			const found = visit(n.id);
			if (found) return found;
		}
	}
	return undefined;
}

/** Parse a mermaid `graph TD` / `flowchart` block into a canonical PlanTree (version 1). */
export function parsePlanMermaid(source: string): PlanParseResult {
	if (typeof source !== "string")
		return { ok: false, error: "The plan must be a mermaid `graph TD` block (a string)." };
	// Refused before any work: a bounded input keeps every later step bounded.
	if (source.length > MAX_PLAN_SOURCE_CHARS)
		return {
			ok: false,
			error: `The plan is ${source.length} characters; keep the mermaid block under ${MAX_PLAN_SOURCE_CHARS} (at most ${MAX_PLAN_NODES} nodes, short labels).`,
		};
	const lines = stripFence(source).split(/\r?\n/);
	const nodes = new Map<string, PlanNode>();
	const labelled = new Set<string>();
	const edges: PlanEdge[] = [];
	const edgeKeys = new Set<string>();
	let sawHeader = false;

	const addNode = (n: ParsedNode, line: string): string | undefined => {
		if (RESERVED_IDS.has(n.id.toLowerCase()))
			return `Line ${quote(line)}: \`${clip(n.id)}\` is a reserved word in mermaid; give the node another id.`;
		const existing = nodes.get(n.id);
		if (n.label !== undefined) {
			if (labelled.has(n.id) && existing?.title !== n.label)
				return `Node \`${clip(n.id)}\` is defined twice with different labels (${quote(existing?.title)} and ${quote(n.label)}); give each node one label.`;
			labelled.add(n.id);
		}
		if (existing) {
			if (n.label !== undefined) existing.title = n.label;
		} else {
			nodes.set(n.id, { id: n.id, title: n.label ?? n.id });
		}
		return undefined;
	};

	for (const rawLine of lines) {
		for (const statement of statements(rawLine)) {
			if (!sawHeader) {
				if (!HEADER.test(statement))
					return {
						ok: false,
						error: `The plan must start with a \`graph TD\` header line; the first line is ${quote(statement)}.`,
					};
				sawHeader = true;
				continue;
			}
			if (IGNORED.test(statement) || SUBGRAPH.test(statement) || /^end$/i.test(statement)) continue;
			let groups: ParsedNode[][];
			try {
				groups = parseStatement(statement);
			} catch (e) {
				const why = e instanceof LineError ? e.message : String(e);
				return { ok: false, error: `Cannot read the line ${quote(rawLine.trim())}: ${why}.` };
			}
			for (const group of groups) {
				for (const n of group) {
					const problem = addNode(n, rawLine.trim());
					if (problem) return { ok: false, error: problem };
				}
			}
			for (let i = 1; i < groups.length; i++) {
				for (const from of groups[i - 1]!) {
					for (const to of groups[i]!) {
						if (from.id === to.id)
							return { ok: false, error: `Node \`${clip(from.id)}\` has an edge to itself; remove the self-edge.` };
						const key = `${from.id}\u0000${to.id}`;
						if (edgeKeys.has(key)) continue;
						edgeKeys.add(key);
						edges.push({ from: from.id, to: to.id });
					}
				}
			}
		}
	}
	if (!sawHeader) return { ok: false, error: "The plan is empty: write a mermaid block starting with `graph TD`." };
	if (nodes.size === 0)
		return { ok: false, error: "The plan has no nodes: add one node per idea, e.g. `a[Idea] --> b[Next idea]`." };
	if (nodes.size > MAX_PLAN_NODES)
		return {
			ok: false,
			error: `The plan has ${nodes.size} nodes; keep it to ${MAX_PLAN_NODES} or fewer (merge small steps).`,
		};
	const nodeList = [...nodes.values()];
	const cycle = findCycle(nodeList, edges);
	if (cycle)
		return {
			ok: false,
			error: `The plan has a cycle (${cycle}); edges point from a prerequisite to what builds on it, so remove one.`,
		};
	return { ok: true, tree: { nodes: nodeList, edges, version: 1 } };
}

/** Print a tree as canonical mermaid: `graph TD`, every node with its quoted label, then the edges. */
export function planToMermaid(tree: PlanTree): string {
	const lines = ["graph TD"];
	for (const n of tree.nodes) lines.push(`  ${n.id}["${encodeLabel(n.title)}"]`);
	for (const e of tree.edges) lines.push(`  ${e.from} --> ${e.to}`);
	return lines.join("\n");
}
