/**
 * The canned lesson the built-in demo model plays: how binary search works.
 * Pure data plus small text builders; the model mechanics live in demo-model.ts
 * and the teaching script in demo-teach.ts. A real micro-lesson that adapts to
 * the probe (a learner who shows the basics skips them: a smaller map), so a new
 * user sees the whole probe -> plan -> teach -> recall -> recap arc without a key.
 */

import type { ProbeDoneInput } from "../../core/contracts/probe.ts";
import type { OutcomeKind } from "../../core/outcome.ts";
import type { AskToolInput, ExplainToolInput, TeacherQuizInput } from "../../core/question-core.ts";

/** What the learner did with a question, read back from its tool result. */
export interface DemoAnswer {
	answer?: string;
	/** What the result means (core/outcome.ts): right, missed, not sure, skipped, undecided... */
	outcome?: OutcomeKind;
	/** The grader's reason, when the grader judged the words. */
	reason?: string;
	/** The tool result was an error (the call was refused or interrupted). */
	error?: boolean;
	/** A group's first vote that is voted again after a discussion: it split, or most chose a wrong answer. */
	revote?: "split" | "wrong";
}

/** Graded right, on the first try or after help. */
export function answeredRight(answer: DemoAnswer | undefined): boolean {
	return answer?.outcome === "first-try" || answer?.outcome === "after-help";
}

/** What one model response says: text, then at most one tool call. */
export interface DemoReply {
	text: string;
	call?: { toolCallId: string; toolName: string; input: unknown };
}

/** One tool call of the script, with how to react to the learner's answer to it. */
export type DemoCall =
	| { toolName: "quiz"; input: TeacherQuizInput; right: string; wrong: string }
	| {
			toolName: "ask";
			input: AskToolInput;
			/** The reaction per option value; `reply` reacts to free text. */
			reactions: Record<string, string>;
			reply?: (answer: string) => string;
	  }
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

/** The prober's questions: a quiz, one where "not sure" is the natural answer, and a typed free answer. */
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
		lead: "No calculator, and **Not sure** is a fine answer here.",
		call: {
			toolName: "quiz",
			input: {
				question: "You halve 1,000 again and again (500, 250, 125, …). About how many halvings until you reach 1?",
				options: ["About 10", "About 100", "About 500"],
				correctAnswer: "About 10",
			},
			right: "Right: about 10, since 2^10 = 1,024. That number will matter later.",
			wrong: "It's fewer than it feels: about 10, since 2^10 = 1,024. We'll count halvings together.",
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

/** Which way the teaching goes, from the probe's answers. */
export interface DemoPath {
	/** Went to the middle and knows the linear worst case: the "sorted input" node is skipped (a smaller map). */
	basics: boolean;
	/** Knows that halving 1,000 takes about 10 steps: the step-count node needs no prediction. */
	halving: boolean;
}

/** The path the probe's answers (in PROBE_STEPS order) call for. */
export function demoPath(answers: readonly (DemoAnswer | undefined)[]): DemoPath {
	const [phone, halving, linear] = answers;
	return { basics: answeredRight(phone) && answeredRight(linear), halving: answeredRight(halving) };
}

/** Builds the assessment from the three probe answers (in PROBE_STEPS order). */
export function demoAssessment(answers: readonly (DemoAnswer | undefined)[]): ProbeDoneInput {
	const [phone, halving, linear] = answers;
	const path = demoPath(answers);
	return {
		assessment: {
			strands: [
				{
					strand: "Ordered data and the middle-first strategy",
					assessment: answeredRight(phone)
						? "Went to the middle of the phone book unprompted: the core intuition is there; build on it."
						: "Did not reach for the middle yet: start from the phone-book picture and why order helps.",
				},
				{
					strand: "Halving and logarithms",
					assessment: answeredRight(halving)
						? "Knows that halving 1,000 takes about 10 steps: the step count can be brief."
						: halving?.outcome === "not-sure"
							? "Not sure how many halvings 1,000 takes: count halvings by hand before naming log2."
							: "Halving counts are not yet automatic: count halvings by hand before naming log2.",
				},
				{
					strand: "Linear search as the baseline",
					assessment: answeredRight(linear)
						? "Knows that checking one by one costs n in the worst case: use it as the comparison point."
						: "The worst case of a linear scan needs a reminder: it checks every item.",
				},
			],
			summary: path.basics
				? "Demo assessment: the basics are there; skip 'Sorted input' and enter at 'Check the middle'."
				: "Demo assessment: enter at 'Sorted input' and walk the whole map; it is short.",
		},
	};
}

/** The last words, after the recap. */
export const DEMO_FAREWELL = `That's the end of the demo lesson, thanks for trying it! ${DEMO_CONFIG_HINT}`;

/** What the prober says after probe_done, before the teacher takes over. */
export const PROBE_FAREWELL = "Thanks, that gives me a clear picture. Let's build your lesson.";

/** The demo's discussion of a group vote that is voted again (it never gives the answer). */
export function demoDiscussion(why: "split" | "wrong"): string {
	return why === "split"
		? "You don't all agree on this one, and that is worth a minute. Each of you: tell the others why you picked your " +
				"answer, and listen for the reason that holds up. Then vote again."
		: "Most of you went for an answer that doesn't hold up yet. Before I say more: what made it look right? " +
				"Go back to the idea we just saw and test each option against it. Then vote again.";
}

/** What the demo says when the learner types something it cannot understand. */
export const DEMO_CANNOT_CHAT =
	"I'm the demo model, so I can't really read free-form messages; let's carry on with the lesson.";

/** The demo's reply to a message typed while a question is open (it cannot answer questions; the question stays open). */
export const DEMO_HELD =
	"I'm the demo model, so I can't answer questions in my own words; the question is still open for you: answer it, ask for a hint, or pick Not sure.";
