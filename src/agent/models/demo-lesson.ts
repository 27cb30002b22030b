/**
 * The canned lesson the built-in demo model plays: how binary search works.
 * Pure data plus small text builders; the model mechanics live in demo-model.ts.
 * A fixed, real micro-lesson (4 plan nodes, predict -> explain -> check on each)
 * so a new user sees the whole probe -> plan -> teach -> recap arc without a key.
 */

import type { ProbeDoneInput } from "../../core/contracts/probe.ts";
import type { AskToolInput, ExplainToolInput, TeacherQuizInput } from "../../core/question-core.ts";

/** What the learner did with a question, read back from its tool result. */
export interface DemoAnswer {
	answer?: string;
	correct?: boolean;
	/** The answer was typed in words the judge could not decide (`judged: "unsure"`). */
	unsure?: boolean;
	skipped?: boolean;
	/** The tool result was an error (the call was refused or interrupted). */
	error?: boolean;
}

/** One tool call of the script, with how to react to the learner's answer to it. */
export type DemoCall =
	| { toolName: "quiz"; input: TeacherQuizInput; right: string; wrong: string }
	| { toolName: "ask"; input: AskToolInput; reactions: Record<string, string> }
	| { toolName: "explain"; input: ExplainToolInput & { nodeId?: string } }
	| { toolName: "plan_init"; input: { mermaid: string } };

/** A step: an optional lead-in sentence and a call. */
export interface DemoStep {
	lead?: string;
	call: DemoCall;
}

/** How a real model gets configured (said in the first message and at the end). */
const DEMO_CONFIG_HINT =
	"To learn any topic with a real model, set `OPENAI_API_KEY` (and optionally `LEARNHARNESS_MODEL`, " +
	"or `OPENAI_BASE_URL` for a local OpenAI-compatible server such as Ollama) in `.env`, then restart.";

/** The first words of the lesson: says plainly that this is the demo. */
export function demoGreeting(topic: string | undefined): string {
	const asked = topic ? `You asked about **${topic}**. ` : "";
	return (
		`Hi! I'm the **built-in demo model** of learnharness, not a real AI: I play one canned lesson, ` +
		`**how binary search works**, so you can see how a lesson runs. ${asked}${DEMO_CONFIG_HINT}\n\n` +
		"First, a few questions to find out what you already know."
	);
}

/** The prober's questions (a quiz, an ask, a free-answer quiz). */
export const PROBE_STEPS: DemoStep[] = [
	{
		call: {
			toolName: "quiz",
			input: {
				question:
					"You need the name *Moreau* in a printed phone book of 1,000 pages, sorted by name. What do you do first?",
				options: [
					"Start at page 1 and read every page",
					"Open it near the middle and see which way to go",
					"Open random pages until the name shows up",
				],
				correctAnswer: "Open it near the middle and see which way to go",
			},
			right: "Yes: the middle tells you which half can't contain the name.",
			wrong: "That works, but slowly. Keep the phone book in mind: we'll come back to it.",
		},
	},
	{
		call: {
			toolName: "ask",
			input: {
				question: "Halving 1,000 again and again reaches 1 after about 10 halvings. How familiar does that feel?",
				options: [
					{ value: "new", label: "That's new to me" },
					{ value: "rusty", label: "I've heard of logarithms, but I'm rusty" },
					{ value: "solid", label: "Solid: that's log2(1000), about 10" },
				],
			},
			reactions: {
				new: "No problem, we'll count halvings by hand.",
				rusty: "Good, we'll refresh it with small numbers.",
				solid: "Great, that will make the last part quick.",
			},
		},
	},
	{
		call: {
			toolName: "quiz",
			input: {
				question:
					"A list has 8 items. You check them one by one from the start. In the worst case, how many items do you check? (type a number)",
				correctAnswer: "8",
				// `eight`, `8 items` and `I think 8` are recognized anyway; these say it without the number.
				acceptedAnswers: ["all of them", "all", "every item", "every one", "the whole list"],
				explanation: "The item you want may be the last one, or missing: then you look at all 8.",
			},
			right: "Right: the worst case checks every item.",
			wrong: "The worst case is 8: the item may be last, or not there at all.",
		},
	},
];

/** The teacher's lesson map (mermaid, graph TD). */
const DEMO_PLAN_MERMAID = [
	"graph TD",
	'  sorted-input["Sorted input"] --> check-middle["Check the middle"]',
	'  check-middle --> shrink-range["Shrink the range"]',
	'  check-middle --> count-steps["Count the steps"]',
].join("\n");

interface NodeLesson {
	nodeId: string;
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
			["the middle one", "the middle item", "the middle"],
		),
	},
	{
		nodeId: "shrink-range",
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
				"Every comparison halves the range: 1,000,000 → 500,000 → 250,000 → … → 1. The number of halvings is " +
				"about **log2(n)**, so a million items need about 20 comparisons, where checking one by one could need " +
				"a million. Doubling the list adds just **one** more comparison.",
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

/** Builds the assessment from the three probe answers (in PROBE_STEPS order). */
export function demoAssessment(answers: readonly (DemoAnswer | undefined)[]): ProbeDoneInput {
	const [phone, halving, linear] = answers;
	const familiarity = halving?.answer ?? "unknown";
	return {
		assessment: {
			strands: [
				{
					strand: "Ordered data and the middle-first strategy",
					assessment: phone?.correct
						? "Went to the middle of the phone book unprompted: the core intuition is there; build on it."
						: "Did not reach for the middle yet: start from the phone-book picture and why order helps.",
				},
				{
					strand: "Halving and logarithms",
					assessment:
						familiarity === "solid"
							? "Comfortable with log2: the step count can be brief."
							: "Halving counts are not yet automatic: count halvings by hand before naming log2.",
				},
				{
					strand: "Linear search as the baseline",
					assessment: linear?.correct
						? "Knows that checking one by one costs n in the worst case: use it as the comparison point."
						: "The worst case of a linear scan needs a reminder: it checks every item.",
				},
			],
			summary: "Demo assessment: enter at 'Sorted input' and walk the whole map; it is short.",
		},
	};
}

/** The teacher's script after plan_init: predict, explain, check for each node, then the recap. */
export const TEACH_STEPS: DemoStep[] = [
	{
		lead: "Here is the map of our lesson. We'll go top to bottom, predicting before each idea.",
		call: { toolName: "plan_init", input: { mermaid: DEMO_PLAN_MERMAID } },
	},
	...NODES.flatMap((node): DemoStep[] => [
		{ lead: "Before I explain anything, a prediction.", call: node.predict },
		{ call: { toolName: "explain", input: { ...node.explain, role: "concept", nodeId: node.nodeId } } },
		{ lead: "Now let's check that it stuck.", call: node.check },
	]),
	{
		lead: "That's the whole map. Let's pull it together.",
		call: {
			toolName: "explain",
			input: {
				title: "Recap: binary search",
				role: "recap",
				body:
					"1. It works on **sorted** input: order makes one comparison informative.\n" +
					"2. Compare with the **middle** of the range still in play.\n" +
					"3. Move `lo` or `hi` past the middle; when `lo` passes `hi`, the target is not there.\n" +
					"4. Each step halves the range, so n items need about **log2(n)** comparisons.\n\n" +
					"Try it: guess a number between 1 and 100 with a friend in at most 7 questions.",
			},
		},
	},
];

/** The last words, after the recap. */
export const DEMO_FAREWELL = `That's the end of the demo lesson, thanks for trying it! ${DEMO_CONFIG_HINT}`;

/** What the prober says after probe_done, before the teacher takes over. */
export const PROBE_FAREWELL = "Thanks, that gives me a clear picture. Let's build your lesson.";

/** What the demo says when the learner types something it cannot understand. */
export const DEMO_CANNOT_CHAT =
	"I'm the demo model, so I can't really read free-form messages; let's carry on with the lesson.";
