/**
 * The demo's second look at shaky nodes before its recap, as a real teacher is
 * told to (prompts/teacher.md) and as the explain tool enforces: for each node
 * the same rule as the engine (core/revisits.ts) still holds open, a fresh
 * check on it; after a re-check that missed, an ask that lets the learner
 * choose between one more question and moving on (the `move-on` value). The
 * rule is read from the demo's own calls and their results in the prompt, so
 * the demo and the refusal never disagree. Two fresh questions per node.
 */

import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from "@ai-sdk/provider";
import type { PlanTree } from "../../core/contracts/plan.ts";
import { MOVE_ON_VALUE, openRevisits } from "../../core/revisits.ts";
import type { DemoCall, DemoStep } from "./demo-lesson.ts";

/** Call-id markers of the revisit calls: `demo-revisit-<node index>-<variant>-…` and `demo-moveon-<n>-…`. */
export const REVISIT_MARKER = /^demo-revisit-(\d+)-(\d+)-/;
export const MOVE_ON_MARKER = /^demo-moveon-(\d+)-/;

type QuizCall = Extract<DemoCall, { toolName: "quiz" }>;

const check = (
	nodeId: string,
	question: string,
	options: string[],
	correctAnswer: string,
	right: string,
	wrong: string,
): QuizCall => ({ toolName: "quiz", input: { question, options, correctAnswer, type: "check", nodeId }, right, wrong });

/** Two fresh checks per node of the demo's map (never the question that was missed). */
const REVISITS: Record<string, [QuizCall, QuizCall]> = {
	"sorted-input": [
		check(
			"sorted-input",
			"Which list can you binary-search for 7 as it is?",
			["[7, 2, 9, 4]", "[2, 4, 7, 9]", "[9, 7, 4, 2, 11]"],
			"[2, 4, 7, 9]",
			"Yes: it is sorted, so every comparison tells you which side to keep.",
			"Only [2, 4, 7, 9] is in order, and without order the middle tells you nothing.",
		),
		check(
			"sorted-input",
			"A pile of exams is sorted by name, then someone shuffles its top half. Can you binary-search the whole pile?",
			["Yes: the bottom half is still sorted", "No: the whole range searched must be sorted", "Only for short names"],
			"No: the whole range searched must be sorted",
			"Right: a comparison in the shuffled half would send you the wrong way.",
			"A comparison in the shuffled half says nothing about the other half: the whole range must be sorted.",
		),
	],
	"check-middle": [
		check(
			"check-middle",
			"Searching [1, 3, 5, 7, 9] for 9: which item do you compare with first?",
			["1", "5", "9"],
			"5",
			"Yes: 5 is the middle of the five items.",
			"The first comparison is with the middle item: 5, with two items on each side.",
		),
		check(
			"check-middle",
			"Searching [10, 20, 30, 40, 50, 60, 70] for 20: after comparing with 40, where do you look next?",
			["[10, 20, 30]", "[50, 60, 70]", "The whole list again"],
			"[10, 20, 30]",
			"Exactly: 20 < 40, so only the left part can hold it.",
			"20 is smaller than 40, so only the part left of 40 can hold it: [10, 20, 30].",
		),
	],
	"shrink-range": [
		check(
			"shrink-range",
			"lo = 0, hi = 8, and the middle item (index 4) is larger than the target. What is the new range?",
			["lo = 0, hi = 3", "lo = 0, hi = 4", "lo = 5, hi = 8"],
			"lo = 0, hi = 3",
			"Right: index 4 is ruled out too, so hi = mid - 1 = 3.",
			"The middle was too large, so it and everything right of it are out: hi = mid - 1 = 3.",
		),
		check(
			"shrink-range",
			"Searching for 6 you reach lo = 3, hi = 3, and index 3 holds 5. What happens next?",
			["lo becomes 4, passes hi: 6 is not in the list", "Check index 3 again", "hi becomes 4"],
			"lo becomes 4, passes hi: 6 is not in the list",
			"Yes: 5 < 6 moves lo to 4, past hi, and an empty range means not found.",
			"5 is too small, so lo = mid + 1 = 4; now lo passes hi and the range is empty: 6 is not there.",
		),
	],
	"count-steps": [
		check(
			"count-steps",
			"About how many comparisons does binary search need, at most, for 1,000 sorted items?",
			["About 10", "About 100", "About 500"],
			"About 10",
			"Yes: 2^10 = 1,024, so about 10 halvings.",
			"About 10: each comparison halves the range, and 2^10 = 1,024.",
		),
		check(
			"count-steps",
			"A sorted list of 64 items: at most how many halvings until one item is left?",
			["6", "32", "64"],
			"6",
			"Right: 64 → 32 → 16 → 8 → 4 → 2 → 1, six halvings.",
			"Count them: 64 → 32 → 16 → 8 → 4 → 2 → 1 is six halvings.",
		),
	],
};

/** The revisit step of a node (by its index in `tree`), variant 0 or 1 (alternating past the second). */
export function revisitStep(tree: PlanTree, nodeIndex: number, variant: number): DemoStep | undefined {
	const node = tree.nodes[nodeIndex];
	const call = node ? REVISITS[node.id]?.[variant % 2] : undefined;
	if (!node || !call) return undefined;
	const lead =
		variant === 0
			? `Before the recap, back to **${node.title}**: it was shaky earlier. A fresh case.`
			: `One more on **${node.title}**.`;
	return { lead, call };
}

/** The ask that lets the learner choose: one more question on `title`, or move on to the recap. */
export function moveOnStep(title: string): DemoStep {
	return {
		call: {
			toolName: "ask",
			input: {
				question: `**${title}** is still a bit shaky. One more question on it, or move on to the recap? It comes back in your spaced review either way.`,
				options: [
					{ value: "again", label: "One more question" },
					{ value: MOVE_ON_VALUE, label: "Move on to the recap" },
				],
			},
			reactions: {
				again: "Good, one more.",
				[MOVE_ON_VALUE]: "Fine: it comes back in your spaced review.",
			},
		},
	};
}

/** A tool call of the prompt with its result (what core/revisits.ts reads). */
interface PromptPart {
	type: string;
	toolCallId: string;
	state: string;
	input: unknown;
	output?: unknown;
}

/** A tool result's value, whatever its encoding (a text that is not JSON: the text); `error` for a failed call. */
export function resultValue(output: LanguageModelV3ToolResultOutput): { error: boolean; value?: unknown } {
	if (output.type === "error-text" || output.type === "error-json" || output.type === "execution-denied")
		return { error: true };
	if (output.type === "json") return { error: false, value: output.value };
	if (output.type === "text") {
		try {
			return { error: false, value: JSON.parse(output.value) };
		} catch {
			return { error: false, value: output.value };
		}
	}
	return { error: false };
}

/** The prompt's tool calls as transcript parts (state from their results), in order. */
export function promptParts(prompt: LanguageModelV3Prompt): PromptPart[] {
	const results = new Map<string, { error: boolean; value?: unknown }>();
	for (const message of prompt) {
		if (message.role !== "tool" && message.role !== "assistant") continue;
		for (const part of message.content)
			if (part.type === "tool-result") results.set(part.toolCallId, resultValue(part.output));
	}
	const parts: PromptPart[] = [];
	for (const message of prompt) {
		if (message.role !== "assistant") continue;
		for (const part of message.content) {
			if (part.type !== "tool-call") continue;
			const result = results.get(part.toolCallId);
			const state = !result ? "input-available" : result.error ? "output-error" : "output-available";
			parts.push({
				type: `tool-${part.toolName}`,
				toolCallId: part.toolCallId,
				state,
				input: part.input,
				...(result?.value !== undefined ? { output: result.value } : {}),
			});
		}
	}
	return parts;
}

/**
 * The next revisit step and its call id, or undefined when no node waits (the recall ask comes next).
 * `parts`: the prompt's calls (promptParts); `tree`: the demo's map.
 */
export function nextRevisit(
	tree: PlanTree,
	parts: readonly PromptPart[],
	randomId: () => string,
): { step: DemoStep; toolCallId: string } | undefined {
	const open = openRevisits(tree, [{ parts }]);
	const first = open[0];
	if (!first) return undefined;
	const nodeIndex = tree.nodes.findIndex((n) => n.id === first.nodeId);
	const asked = parts.filter((p) => REVISIT_MARKER.exec(p.toolCallId)?.[1] === String(nodeIndex)).length;
	const last = parts.at(-1);
	// A re-check that left the node open: the learner chooses between one more and moving on (once per miss).
	const lastRevisit = last && REVISIT_MARKER.exec(last.toolCallId);
	if (lastRevisit && last.state === "output-available" && lastRevisit[1] === String(nodeIndex)) {
		const n = parts.filter((p) => MOVE_ON_MARKER.test(p.toolCallId)).length;
		return { step: moveOnStep(first.title), toolCallId: `demo-moveon-${n}-${randomId()}` };
	}
	const step = revisitStep(tree, nodeIndex, asked);
	return step ? { step, toolCallId: `demo-revisit-${nodeIndex}-${asked}-${randomId()}` } : undefined;
}

const isNode = (v: unknown): v is { id: string; title: string } =>
	typeof v === "object" &&
	v !== null &&
	typeof (v as { id?: unknown }).id === "string" &&
	typeof (v as { title?: unknown }).title === "string";

/** The map of the latest successful plan_init among `parts` (its result carries the tree), checked node by node. */
export function treeOf(parts: readonly PromptPart[]): PlanTree | undefined {
	for (let i = parts.length - 1; i >= 0; i--) {
		const part = parts[i];
		if (part?.type !== "tool-plan_init" || part.state !== "output-available") continue;
		const tree = (part.output as { ok?: unknown; tree?: { nodes?: unknown; version?: unknown } } | undefined)?.tree;
		if (!Array.isArray(tree?.nodes) || !tree.nodes.every(isNode)) continue;
		return {
			nodes: tree.nodes.map((n) => ({ id: n.id, title: n.title })),
			edges: [],
			version: typeof tree.version === "number" ? tree.version : 1,
		};
	}
	return undefined;
}

/** The step a revisit or move-on call id was made from (to react to its answer), if it is one. */
export function revisitStepOf(tree: PlanTree, toolCallId: string): DemoStep | undefined {
	const revisit = REVISIT_MARKER.exec(toolCallId);
	if (revisit) return revisitStep(tree, Number(revisit[1]), Number(revisit[2]));
	return MOVE_ON_MARKER.test(toolCallId) ? moveOnStep("") : undefined;
}
