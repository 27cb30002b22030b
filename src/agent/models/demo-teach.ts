/**
 * The demo's teaching script: the lesson map and, per node, a prediction, an
 * explanation and a check, each with its own lead line. teachSteps(path)
 * picks the route the probe called for: a learner who showed the basics gets a
 * smaller map without "Sorted input", and one who knows halving counts skips
 * the last node's prediction. It ends with a recall ask, then the recap.
 */

import type { TeacherQuizInput } from "../../core/question-core.ts";
import type { DemoCall, DemoPath, DemoStep } from "./demo-lesson.ts";

/** The teacher's lesson map (mermaid, graph TD): the whole one, or without "Sorted input" for a learner who has it. */
function planMermaid(path: DemoPath): string {
	return [
		"graph TD",
		...(path.basics ? [] : ['  sorted-input["Sorted input"] --> check-middle["Check the middle"]']),
		'  check-middle["Check the middle"] --> shrink-range["Shrink the range"]',
		'  check-middle --> count-steps["Count the steps"]',
	].join("\n");
}

interface NodeLesson {
	nodeId: string;
	/** The lines that lead into the node's prediction and its check (varied: no two nodes open alike). */
	predictLead: string;
	checkLead: string;
	predict: Extract<DemoCall, { toolName: "quiz" }>;
	explain: { title: string; body: string };
	check: Extract<DemoCall, { toolName: "quiz" }>;
}

function quiz(
	nodeId: string,
	type: "predict" | "check",
	question: string,
	options: string[] | undefined,
	correctAnswer: string,
	right: string,
	wrong: string,
	acceptedAnswers?: string[],
): Extract<DemoCall, { toolName: "quiz" }> {
	const input: TeacherQuizInput = { question, correctAnswer, type, nodeId };
	if (options) input.options = options;
	if (acceptedAnswers) input.acceptedAnswers = acceptedAnswers;
	return { toolName: "quiz", input, right, wrong };
}

const NODES: NodeLesson[] = [
	{
		nodeId: "sorted-input",
		predictLead: "Before I explain anything, a prediction.",
		checkLead: "Now a quick check that it stuck.",
		predict: quiz(
			"sorted-input",
			"predict",
			"Prediction: does the 'open it in the middle' trick work on an **unsorted** pile of names?",
			[
				"Yes: the middle still tells you which half to keep",
				"No: on an unsorted pile the middle tells you nothing",
				"Only when the pile is small",
			],
			"No: on an unsorted pile the middle tells you nothing",
			"Exactly: order is what makes the middle informative.",
			"Not quite: if the names are shuffled, the middle name says nothing about where *Moreau* is.",
		),
		explain: {
			title: "Binary search needs sorted input",
			body:
				"Binary search finds an item in a **sorted** list. Because the list is in order, one comparison with " +
				"any item tells you on which side the target must be. Without order, that comparison tells you nothing, " +
				"and you are back to checking items one by one.",
		},
		check: quiz(
			"sorted-input",
			"check",
			"Which list can you binary-search for 42 as it is?",
			["[3, 9, 17, 42, 50]", "[42, 3, 50, 9, 17]", "[9, 3, 17, 50, 42]"],
			"[3, 9, 17, 42, 50]",
			"Yes: it is the only sorted one.",
			"Look again: only [3, 9, 17, 42, 50] is in order, and order is the requirement.",
		),
	},
	{
		nodeId: "check-middle",
		predictLead: "Next idea. Make a guess first: a wrong guess is useful too.",
		checkLead: "Your turn to apply it: type the number.",
		predict: quiz(
			"check-middle",
			"predict",
			"You search [3, 9, 17, 42, 50, 61, 78] for 61. The middle item is 42. What can you conclude?",
			["61 must be in the left half", "61 can only be to the right of 42", "Nothing yet: check the neighbours"],
			"61 can only be to the right of 42",
			"Right: 61 > 42 and the list is sorted, so everything left of 42 is ruled out.",
			"Think about order: 61 > 42, and everything left of 42 is smaller still, so the left half is ruled out.",
		),
		explain: {
			title: "Compare with the middle",
			body:
				"Each step compares the target with the **middle** item of the range still in play:\n\n" +
				"- equal: found it;\n- target smaller: it can only be in the left half;\n" +
				"- target larger: it can only be in the right half.\n\n" +
				"Picking the middle matters: whichever way the comparison goes, half the range disappears.",
		},
		check: quiz(
			"check-middle",
			"check",
			"Searching [2, 4, 6, 8, 10, 12, 14] for 4: which item do you compare with first? (type the number)",
			undefined,
			"8",
			"Yes: 8 sits in the middle of the seven items.",
			"The first comparison is with the middle item: 8 (three items on each side).",
			// No accepted "the middle": the explanation just said it, and the question asks for the number.
		),
	},
	{
		nodeId: "shrink-range",
		predictLead: "Now the bookkeeping. What do you expect here?",
		checkLead: "One more check, on the stop rule.",
		predict: quiz(
			"shrink-range",
			"predict",
			"The range is lo = 0, hi = 6. The middle, index 3, holds a value smaller than the target. What is the new range?",
			["lo = 3, hi = 6", "lo = 4, hi = 6", "lo = 0, hi = 2"],
			"lo = 4, hi = 6",
			"Exactly: index 3 is already ruled out, so lo moves past it to 4.",
			"Close: index 3 was just checked and is too small, so it is ruled out too; lo becomes 4.",
		),
		explain: {
			title: "Shrink the range, know when to stop",
			body:
				"Keep two indexes, `lo` and `hi`, around the part still in play. With `mid = (lo + hi) / 2` (rounded down):\n\n" +
				"- middle too small: `lo = mid + 1`\n- middle too large: `hi = mid - 1`\n\n" +
				"If `lo` ever passes `hi`, the range is empty: the target is **not in the list**. That is the stop rule.",
		},
		check: quiz(
			"shrink-range",
			"check",
			"Searching [1, 3, 7, 9] for 5, you reach lo = 2 and hi = 1. What does that mean?",
			["5 is at index 1", "5 is not in the list", "Something went wrong: start over"],
			"5 is not in the list",
			"Right: lo passed hi, the range is empty, so 5 is not there.",
			"When lo passes hi the range is empty: nothing is left to check, so 5 is not in the list.",
		),
	},
	{
		nodeId: "count-steps",
		predictLead: "Last idea: how fast is it? Guess before we count.",
		checkLead: "And the check for this one.",
		predict: quiz(
			"count-steps",
			"predict",
			"At most, about how many comparisons does binary search need for 1,000,000 sorted items?",
			["About 20", "About 1,000", "About 500,000"],
			"About 20",
			"Yes: about 20, because 2^20 is just over a million.",
			"It's far fewer: about 20. Each comparison halves the range, and 2^20 is just over a million.",
		),
		explain: {
			title: "Why it is fast",
			body:
				// It stops short of what the check asks (what doubling costs): the learner works that out.
				"Every comparison halves the range: a million items, then 500,000, then 250,000, … down to a single one. The number " +
				"of halvings is about **log2(n)**, so a million items need about 20 comparisons, where checking one by " +
				"one could need a million.",
		},
		check: quiz(
			"count-steps",
			"check",
			"The list grows from 1,000,000 to 2,000,000 items. How many extra comparisons does binary search need, at most?",
			["1", "20", "1,000,000"],
			"1",
			"Exactly: one more halving absorbs the doubling.",
			"Just 1: one extra halving brings 2,000,000 back to 1,000,000.",
		),
	},
];

/** The recall question before the recap (the explain tool refuses a recap without one). */
const RECALL: DemoStep = {
	lead: "Before I sum up, your turn first.",
	call: {
		toolName: "ask",
		input: { question: "In a sentence or two: what did you learn about binary search today?" },
		reactions: {},
		reply: (answer) => {
			const words = answer
				.replace(/\s+/g, " ")
				.trim()
				.replace(/(?<![.!?])[.!?]+$/, ""); // from where the run starts (not from each mark: quadratic)
			const quoted = words.length > 120 ? `${words.slice(0, 119)}…` : words;
			return `Thanks: "${quoted}". Here is how I'd put it, next to your words.`;
		},
	},
};

const RECAP_ITEMS: Record<string, string> = {
	"sorted-input": "It works on **sorted** input: order makes one comparison informative.",
	"check-middle": "Compare with the **middle** of the range still in play.",
	"shrink-range": "Move `lo` or `hi` past the middle; when `lo` passes `hi`, the target is not there.",
	"count-steps": "Each step halves the range, so n items need about **log2(n)** comparisons.",
};

/** The teacher's script for a path: the map, each node (predict → explain → check), the recall ask, the recap. */
export function teachSteps(path: DemoPath): DemoStep[] {
	const nodes = NODES.filter((n) => !(path.basics && n.nodeId === "sorted-input"));
	const first = path.basics
		? "You have the basics, so the map skips them: we start at the middle."
		: "Here is the map of our lesson. We'll go top to bottom, predicting before each idea.";
	const recap = nodes.map((n, i) => `${i + 1}. ${RECAP_ITEMS[n.nodeId] ?? ""}`).join("\n");
	return [
		{ lead: first, call: { toolName: "plan_init", input: { mermaid: planMermaid(path) } } },
		...nodes.flatMap((node): DemoStep[] => [
			// Someone who knows halving counts needs no prediction about them.
			...(path.halving && node.nodeId === "count-steps" ? [] : [{ lead: node.predictLead, call: node.predict }]),
			{ call: { toolName: "explain", input: { ...node.explain, role: "concept", nodeId: node.nodeId } } },
			{ lead: node.checkLead, call: node.check },
		]),
		RECALL,
		{
			call: {
				toolName: "explain",
				input: {
					title: "Recap: binary search",
					role: "recap",
					body: `${recap}\n\nTry it: guess a number between 1 and 100 with a friend in at most 7 questions.`,
				},
			},
		},
	];
}
