/**
 * The demo model's lesson on the learner's material (a lesson whose agents offer `search_material`):
 * the prober concludes at once; the teacher draws the map from the document's headings (the start
 * note lists them), and for each node searches the material, explains from the passage found with a
 * citation (page and words copied from it, which the engine checks), and asks which section says
 * it; then the recall ask and the recap. A question typed meanwhile is searched for: a passage found
 * is cited, none found is answered without a citation, saying the material does not cover it.
 * Driven by the prompt like the rest of the demo (its call ids `demo-mat-<step>-` and
 * `demo-matq-<step>-` say how far it got).
 */

import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from "@ai-sdk/provider";
import { isHeldOutput, parseLateAnswer } from "../../core/late-answer.ts";
import { outcomeOf } from "../../core/outcome.ts";
import { MOVE_ON_VALUE } from "../../core/revisits.ts";
import type { DemoReply } from "./demo-lesson.ts";
import { resultValue } from "./demo-revisit.ts";

/** The material as the start note names it. */
export interface NotedMaterial {
	name: string;
	headings: Array<{ title: string; page: number }>;
}

/** Most nodes the demo's map has. */
const MAX_NODES = 4;
const NOTE_HEAD = "Material: the learner attached ";

/** The material the prompt's start note names, or undefined when there is none. */
export function notedMaterial(prompt: LanguageModelV3Prompt): NotedMaterial | undefined {
	for (const m of prompt) {
		if (m.role !== "user") continue;
		for (const p of m.content) {
			if (p.type !== "text") continue;
			const at = p.text.indexOf(NOTE_HEAD);
			if (at < 0) continue;
			const lines = p.text.slice(at).split("\n");
			const first = lines[0] ?? "";
			const nameEnd = first.lastIndexOf(" (");
			const name = parseQuoted(first.slice(NOTE_HEAD.length, nameEnd)) ?? "the material";
			const headings: NotedMaterial["headings"] = [];
			for (const line of lines.slice(1)) {
				const trimmed = line.trim();
				if (!trimmed.startsWith('- "')) continue;
				const cut = trimmed.lastIndexOf(" (p. ");
				const title = parseQuoted(trimmed.slice(2, cut));
				const page = Number.parseInt(trimmed.slice(cut + 5), 10);
				if (title && Number.isInteger(page)) headings.push({ title, page });
			}
			return { name, headings };
		}
	}
	return undefined;
}

function parseQuoted(text: string): string | undefined {
	try {
		const v: unknown = JSON.parse(text);
		return typeof v === "string" ? v : undefined;
	} catch {
		return undefined;
	}
}

interface MatCall {
	id: string;
	kind: "mat" | "matq";
	step: number;
	toolName: string;
	input: unknown;
}

const MARK = /^demo-(matq?)-(\d+)-/;

function callsOf(prompt: LanguageModelV3Prompt): MatCall[] {
	const out: MatCall[] = [];
	for (const m of prompt) {
		if (m.role !== "assistant") continue;
		for (const p of m.content) {
			if (p.type !== "tool-call") continue;
			const hit = MARK.exec(p.toolCallId);
			if (hit)
				out.push({
					id: p.toolCallId,
					kind: hit[1] === "matq" ? "matq" : "mat",
					step: Number(hit[2]),
					toolName: p.toolName,
					input: p.input,
				});
		}
	}
	return out;
}

function resultsOf(prompt: LanguageModelV3Prompt): Map<string, { error: boolean; value?: unknown }> {
	const out = new Map<string, { error: boolean; value?: unknown }>();
	for (const m of prompt) {
		if (m.role === "user")
			for (const p of m.content) {
				const late = p.type === "text" ? parseLateAnswer(p.text) : undefined;
				if (late) out.set(late.toolCallId, { error: false, value: late.result });
			}
		if (m.role !== "tool" && m.role !== "assistant") continue;
		for (const p of m.content) {
			if (p.type !== "tool-result") continue;
			const output = p.output as LanguageModelV3ToolResultOutput;
			if (output.type === "json" && isHeldOutput(output.value)) continue;
			out.set(p.toolCallId, resultValue(output));
		}
	}
	return out;
}

interface Passage {
	page: number;
	heading?: string;
	text: string;
}

function passagesOf(value: unknown): Passage[] {
	const list = (value as { passages?: unknown } | undefined)?.passages;
	if (!Array.isArray(list)) return [];
	return list.filter(
		(p): p is Passage => typeof p?.page === "number" && typeof p?.text === "string" && p.text.trim() !== "",
	);
}

/** A passage's body (its heading line set aside) as words. */
function bodyWords(p: Passage): string[] {
	const lines = p.text.split("\n");
	const body = lines[0] === p.heading && lines.length > 1 ? lines.slice(1) : lines;
	return body
		.join(" ")
		.replace(/…$/, "")
		.split(/\s+/)
		.filter((w) => w !== "");
}

const id = (kind: "mat" | "matq", step: number) => `demo-${kind}-${step}-${Math.random().toString(36).slice(2, 10)}`;

/** The map's nodes: the document's headings (at most MAX_NODES), with ids m1, m2, … */
function nodesOf(material: NotedMaterial): Array<{ id: string; title: string }> {
	const seen = new Set<string>();
	const titles = material.headings.map((h) => h.title).filter((t) => !seen.has(t) && seen.add(t));
	return titles.slice(0, MAX_NODES).map((title, i) => ({ id: `m${i + 1}`, title }));
}

const label = (title: string): string => title.replace(/["\n]/g, "'").slice(0, 80);

/** The explanation of a passage, citing it (page and its first words, as the engine will check). */
function explainFrom(p: Passage, nodeId: string | undefined, material: NotedMaterial): unknown {
	const words = bodyWords(p);
	const quote = words.slice(0, 8).join(" ");
	const excerpt = words.slice(0, 40).join(" ");
	return {
		title: p.heading ?? `From ${material.name}`,
		body: `Here is what ${material.name} says${p.heading ? ` under **${p.heading}**` : ""}:\n\n> ${excerpt}${words.length > 40 ? " …" : ""}\n\nRead it once more and put it in your own words in your head before the question.`,
		role: "concept",
		...(nodeId ? { nodeId } : {}),
		...(words.length >= 3 ? { source: { page: p.page, quote } } : {}),
	};
}

/** The reply of a material lesson's demo; undefined when the prompt is not one (the regular demo plays). */
export function materialDemoReply(
	prompt: LanguageModelV3Prompt,
	toolNames: ReadonlySet<string>,
	typedText: string | undefined,
): DemoReply | undefined {
	if (!toolNames.has("search_material")) return undefined;
	const material = notedMaterial(prompt);
	if (!material) return undefined;
	const calls = callsOf(prompt);
	const results = resultsOf(prompt);
	if (toolNames.has("probe_done")) {
		if (calls.some((c) => c.toolName === "probe_done" && !results.get(c.id)?.error))
			return { text: "Thanks. Let's go through the material." };
		return {
			text: `You brought ${material.name}: I'll teach from it, section by section.`,
			call: {
				toolCallId: id("mat", 0),
				toolName: "probe_done",
				input: {
					assessment: {
						strands: [{ strand: material.name, assessment: "New to this material: we start at its first section." }],
						summary: `The lesson follows ${material.name}.`,
					},
				},
			},
		};
	}
	const last = calls.at(-1);
	// A question the learner typed: search for it, answer with a citation when the material has it, without one when not.
	if (typedText)
		return {
			text: "",
			call: { toolCallId: id("matq", 0), toolName: "search_material", input: { query: typedText.slice(0, 300) } },
		};
	if (last?.kind === "matq") {
		if (last.step === 0) {
			const found = passagesOf(results.get(last.id)?.value)[0];
			const input = found
				? explainFrom(found, undefined, material)
				: {
						title: "Not in the material",
						body: `${material.name} does not cover that, so there is no page to cite. From general knowledge: that is beyond this lesson's material; ask me again after the lesson, or bring a document that covers it.`,
						role: "concept",
					};
			return { text: "", call: { toolCallId: id("matq", 1), toolName: "explain", input } };
		}
		if (last.step === 1 && !results.get(last.id)?.error) return { text: "Back to where we were." };
	}
	return teach(
		material,
		calls.filter((c) => c.kind === "mat"),
		results,
	);
}

function teach(
	material: NotedMaterial,
	mine: MatCall[],
	results: Map<string, { error: boolean; value?: unknown }>,
): DemoReply {
	const nodes = nodesOf(material);
	const last = mine.at(-1);
	let next = last ? last.step + 1 : 1;
	// A refused call is tried once more, then skipped (as a real model would).
	if (last && results.get(last.id)?.error && mine.filter((c) => c.step === last.step).length < 2) next = last.step;
	// Steps: 1 the map; per node 3 (search, explain, check); then the recall ask, the recap, the farewell.
	if (next === 1) {
		const lines = nodes.map((n) => `  ${n.id}["${label(n.title)}"]`);
		const edges = nodes.slice(1).map((n, i) => `  ${nodes[i]?.id} --> ${n.id}`);
		const mermaid = ["graph TD", ...lines, ...edges].join("\n");
		return {
			text: `Here is the map: the sections of ${material.name}, in its order.`,
			call: { toolCallId: id("mat", 1), toolName: "plan_init", input: { mermaid } },
		};
	}
	const nodeStep = next - 2;
	const node = nodes[Math.floor(nodeStep / 3)];
	if (node && nodeStep >= 0) {
		const phase = nodeStep % 3;
		const reaction = reactionTo(last, results);
		if (phase === 0)
			return {
				text: reaction,
				call: { toolCallId: id("mat", next), toolName: "search_material", input: { query: node.title } },
			};
		const search = mine.filter((c) => c.step === next - phase).at(-1);
		const passage = passagesOf(search && results.get(search.id)?.value).find((p) => p.heading === node.title) ??
			passagesOf(search && results.get(search.id)?.value)[0] ?? { page: 1, text: node.title };
		if (phase === 1)
			return {
				text: "",
				call: { toolCallId: id("mat", next), toolName: "explain", input: explainFrom(passage, node.id, material) },
			};
		const words = bodyWords(passage).slice(0, 12).join(" ");
		return {
			text: "Now a check.",
			call: {
				toolCallId: id("mat", next),
				toolName: "quiz",
				input: {
					question: `Which section of ${material.name} says this: "${words}…"?`,
					options: nodes.map((n) => n.title),
					correctAnswer: node.title,
					type: "check",
					nodeId: node.id,
				},
			},
		};
	}
	const after = next - 2 - nodes.length * 3;
	// A refused recap (shaky sections wait for a second look): offer to move on, recall again, recap again.
	const recapRefused = mine.some(
		(c) => c.toolName === "explain" && (c.input as { role?: unknown })?.role === "recap" && results.get(c.id)?.error,
	);
	const recall = { question: `In a sentence or two: what did you learn from ${material.name}?` };
	const moveOn = {
		question: "Some sections were shaky. Move on now, or look at them again later?",
		options: [
			{ value: MOVE_ON_VALUE, label: "Move on" },
			{ value: "later", label: "Later" },
		],
	};
	const ask = (input: unknown): DemoReply => ({
		text: reactionTo(last, results),
		call: { toolCallId: id("mat", next), toolName: "ask", input },
	});
	const recap = (): DemoReply => ({
		text: "Thanks. Here is the summary.",
		call: {
			toolCallId: id("mat", next),
			toolName: "explain",
			input: {
				title: `Recap: ${material.name}`,
				role: "recap",
				body: nodes.map((n, i) => `${i + 1}. **${n.title}**`).join("\n"),
			},
		},
	});
	if (after === 0 || (recapRefused && after === 3)) return ask(recall);
	if (after === 1 || (recapRefused && after === 4)) return recap();
	if (recapRefused && after === 2) return ask(moveOn);
	return { text: "That's the end of the lesson on your material. Thanks!" };
}

function reactionTo(last: MatCall | undefined, results: Map<string, { error: boolean; value?: unknown }>): string {
	if (last?.toolName !== "quiz") return "";
	const value = results.get(last.id)?.value;
	if (typeof value !== "object" || value === null) return "";
	const outcome = outcomeOf(value as Record<string, unknown>);
	const right = (last.input as { correctAnswer?: unknown })?.correctAnswer;
	return outcome.kind === "first-try" || outcome.kind === "after-help"
		? "Right."
		: `Not quite: that passage is under "${String(right)}".`;
}
