/**
 * How a question's choices are shown on a platform, decided once and shared
 * by the "open" and "answered" states of a card so both look the same:
 * buttons (few choices), select menus (many), an "Answer" button (free
 * answer), or a degraded text-only form (too many choices, or a tool call id
 * too long for component ids).
 */

import { outcomeOf } from "../../core/outcome.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { componentIdsFit } from "../component-id.ts";
import { fitLine } from "./limits.ts";
import type { AnsweredCard, CardChoice } from "./model.ts";
import { plainLabel } from "./plain-label.ts";

/** The controls of a question. */
export type ChoiceControls =
	| { type: "free" }
	| { type: "buttons" }
	/** Select menus of at most `perSelect` options each, in order. */
	| { type: "selects"; perSelect: number }
	| { type: "none"; reason: "too-many" | "ids" };

/** A platform's capacity for choices. */
export interface ChoiceCapacity {
	maxButtons: number;
	perSelect: number;
	maxSelects: number;
	/** Longest label of a button or select option. */
	labelChars: number;
}

/** The decided layout: controls, and whether choice texts go into the body (controls then carry letters). */
export interface ChoiceLayout {
	controls: ChoiceControls;
	inBody: boolean;
}

/** The label a control shows for a choice ("A. text" as plain text, or "A" when texts are in the body). */
export function choiceLabel(choice: CardChoice, layout: ChoiceLayout, max: number): string {
	return layout.inBody ? choice.letter : fitLine(`${choice.letter}. ${plainLabel(choice.text)}`, max);
}

/** Decides the controls for these choices on a platform. */
export function layoutChoices(
	toolCallId: string,
	choices: readonly CardChoice[],
	capacity: ChoiceCapacity,
	/** The choices are shown elsewhere (a picture): controls carry the letters only. */
	lettersOnly = false,
): ChoiceLayout {
	if (!componentIdsFit(toolCallId)) return { controls: { type: "none", reason: "ids" }, inBody: choices.length > 0 };
	if (choices.length === 0) return { controls: { type: "free" }, inBody: false };
	let controls: ChoiceControls;
	if (choices.length <= capacity.maxButtons) controls = { type: "buttons" };
	else if (choices.length <= capacity.perSelect * capacity.maxSelects)
		controls = { type: "selects", perSelect: capacity.perSelect };
	else return { controls: { type: "none", reason: "too-many" }, inBody: true };
	// Long or multi-line texts would be cut on a control: show them in the body, letters on the controls.
	const inBody = choices.some(
		(c) =>
			/\n/.test(c.text.trim()) || `${c.letter}. ${c.text.trim()}`.length > capacity.labelChars || c.text.trim() === "",
	);
	return { controls, inBody: inBody || lettersOnly };
}

/** The note shown instead of controls in the degraded form. */
export function degradedNote(reason: "too-many" | "ids", hasChoices: boolean, locale: Locale = DEFAULT_LOCALE): string {
	if (reason === "too-many") return t(locale, "card.tooManyChoices");
	return t(locale, hasChoices ? "card.noButtonsLetter" : "card.noButtonsText");
}

/** An explanation's heading: its title, framed by its role ("Recap: …") unless the title already says so. */
export function explainHeading(
	title: string | undefined,
	role: string | undefined,
	locale: Locale = DEFAULT_LOCALE,
): string | undefined {
	const label = role === "recap" ? t(locale, "card.recap") : role === "example" ? t(locale, "card.example") : undefined;
	if (title === undefined) return label;
	if (label === undefined || title.toLowerCase().startsWith(label.toLowerCase())) return title;
	return `${label}: ${title}`;
}

/** How an answered card reads, shared by the platforms (each adds its own emoji and markup). */
export type AnswerOutcome =
	| "skipped"
	| "not-sure"
	| "explain-again"
	| "prediction"
	| "correct"
	| "shown"
	| "wrong"
	| "plain";

/** The outcome of an answered card, and how it was reached (" on the second try, with a hint"). */
export function answerOutcome(card: AnsweredCard): { outcome: AnswerOutcome; how: string } {
	const locale = card.locale ?? DEFAULT_LOCALE;
	const tries = card.tries ?? 0;
	const nth =
		tries === 0 ? "" : tries === 1 ? t(locale, "how.secondTry") : t(locale, "how.tries", { count: tries + 1 });
	const how = `${nth}${card.hinted === true ? `${nth === "" ? "" : ","}${t(locale, "how.hint")}` : ""}`;
	// The card carries the result's own fields (tries: the attempts' count), so outcomeOf reads it as it reads a result.
	const { kind } = outcomeOf({ ...card, attempts: tries });
	if (kind === "skipped" || kind === "not-sure" || kind === "explain-again") return { outcome: kind, how };
	if (card.quizType === "predict") return { outcome: "prediction", how };
	if (kind === "first-try" || kind === "after-help") return { outcome: "correct", how };
	// Nothing answered and nothing chosen: the learner asked to see the answer.
	if (kind === "shown" && card.chosenIndex === undefined) return { outcome: "shown", how };
	if (kind === "shown" || kind === "missed") return { outcome: "wrong", how };
	return { outcome: "plain", how };
}
