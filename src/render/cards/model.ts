/**
 * Platform-neutral card models: what the tutor shows, before any platform's
 * limits. The Discord and Slack mappers turn one Card into one or more
 * messages that fit by construction.
 */

import type { Participant } from "../../core/contracts/events.ts";
import type { ProbeStrand } from "../../core/contracts/probe.ts";
import { type Locale, t } from "../../i18n/index.ts";

/** What every card has: the language of its words (ours; the tutor's text is already in it). */
interface CardBase {
	/** Headings, buttons and notes in this language (default English). */
	locale?: Locale;
}

import type { HelpKind } from "../../core/struggle.ts";

/** The label of a help control in `locale`. */
export function helpLabel(kind: HelpKind, locale: Locale = "en"): string {
	const key = kind === "not-sure" ? "help.notSure" : (`help.${kind}` as const);
	return t(locale, key);
}

/** One answer choice, lettered A, B, C... (AA, AB... past Z). */
export interface CardChoice {
	/** 0-based index into the tool input's options (what a click sends back). */
	index: number;
	letter: string;
	/** The option text (quiz) or label (ask), markdown. */
	text: string;
}

/** A picture or file that goes with a card, posted with its messages (platform-neutral). */
export type CardAttachment =
	| {
			kind: "image";
			/** e.g. "math-1.png". */
			filename: string;
			data: Buffer;
			/** Alt text: the TeX it shows. */
			alt: string;
			/** Size in CSS pixels (the PNG is drawn at 2x). */
			width: number;
			height: number;
	  }
	| { kind: "file"; filename: string; data: Buffer; title: string };

/** A quiz or ask waiting for the learner: choices, or a free answer through an "Answer" button. */
export interface QuestionCard extends CardBase {
	kind: "question";
	toolCallId: string;
	source: "quiz" | "ask";
	/** Heading, e.g. "Predict", "Check", "Quiz", "Question". */
	heading: string;
	/** One line framing the question, e.g. "Make a prediction before we look at it." */
	framing?: string;
	/** The question, markdown. */
	question: string;
	/** Empty for a free answer. */
	choices: CardChoice[];
	/** Short tutor text that led into the question, shown above it (markdown). */
	lead?: string;
	/** The choices are drawn in a picture (they hold math): the controls carry the letters only. */
	choicesPictured?: boolean;
	/** Pictures of its formulas (and of its choices), in order. */
	attachments?: CardAttachment[];
	/** Help controls under the question, in order (quizzes: Hint, Explain another way, Not sure). */
	help?: HelpKind[];
	/**
	 * A check missed once: "missed" shows "Not quite" with its help controls only (Try again, Hint, Show
	 * answer), the choices as text; "retry" shows the choices again for the second try.
	 */
	struggle?: { state: "missed" | "retry"; tried: string[] };
}

/** An explanation: markdown, possibly longer than one message. */
export interface ExplainCard extends CardBase {
	kind: "explain";
	toolCallId: string;
	title?: string;
	role?: "intro" | "concept" | "example" | "recap";
	body: string;
	/** Short tutor text that led into the explanation, shown above it (markdown). */
	lead?: string;
	/** Pictures of its formulas, in order. */
	attachments?: CardAttachment[];
}

/** The probe's assessment: each strand with the learner's edge. */
export interface AssessmentCard extends CardBase {
	kind: "assessment";
	toolCallId: string;
	strands: ProbeStrand[];
	summary?: string;
	/** Pictures of its formulas, in order. */
	attachments?: CardAttachment[];
}

/** A question after it was answered: controls disabled, the choice and (for check quizzes) the correct answer. */
export interface AnsweredCard extends CardBase {
	kind: "answered";
	toolCallId: string;
	source: "quiz" | "ask";
	heading: string;
	/** The question, when the tool input still parses. */
	question?: string;
	/** The choices as they were shown (empty for a free answer). */
	choices: CardChoice[];
	/** Index of the chosen choice, when it was one of the choices. */
	chosenIndex?: number;
	/** What was answered (option text, ask label, or the typed text). */
	answer: string;
	by: Participant;
	/** Graded quizzes only. */
	correct?: boolean;
	/** A group vote that ended in a tie: the tied answers (`A. 1/2`), shown instead of one answer and a verdict. */
	tie?: string[];
	/** The learner moved on instead of answering. */
	skipped?: boolean;
	/** The grader is checking the typed answer: the verdict replaces this card. */
	checking?: boolean;
	/** The grader's one-line reason for its verdict. */
	reason?: string;
	/** Quiz only: "check" or "predict" (a prediction is a guess, never shown as wrong). */
	quizType?: "check" | "predict";
	/** Wrong tries before this answer; hints used; the learner said "Not sure"; asked to explain again. */
	tries?: number;
	hinted?: boolean;
	notSure?: boolean;
	explainAgain?: boolean;
	/** Revealed: the correct answer and why (check quizzes: after two misses, on request, or when right; predictions always). */
	reveal?: { correctAnswer: string; correctIndex?: number; explanation?: string };
	/** The lead the open question showed, kept so answering does not remove it (markdown). */
	lead?: string;
}

/** Plain text from the tutor, or a notice (an error, the lesson's end). */
export interface TextCard extends CardBase {
	kind: "text";
	tone: "plain" | "notice" | "error";
	text: string;
	/** Pictures of its formulas, in order. */
	attachments?: CardAttachment[];
}

/** Everything the mappers can show. */
export type Card = QuestionCard | ExplainCard | AssessmentCard | AnsweredCard | TextCard;

/** Letters of a 0-based index: A..Z, then AA, AB... */
export function choiceLetter(index: number): string {
	let n = index;
	let out = "";
	do {
		out = String.fromCharCode(65 + (n % 26)) + out;
		n = Math.floor(n / 26) - 1;
	} while (n >= 0);
	return out;
}

/** A participant's name for display ("someone" when neither name nor id is usable). */
export function displayName(by: Participant, locale: Locale = "en"): string {
	const name = (by.name ?? "").replace(/\s+/g, " ").trim();
	if (name !== "") return name.slice(0, 80);
	return by.id.trim() === "" ? t(locale, "card.someone") : by.id.slice(0, 80);
}
