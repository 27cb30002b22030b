/**
 * TutorEvent -> platform-neutral Card. Events carry inputs that already
 * passed the parse seam, but this is a display path: odd shapes degrade to a
 * plainer card, never a throw.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import { outcomeOf } from "../../core/outcome.ts";
import type { AskToolInput, QuizToolInput } from "../../core/question-core.ts";
import { GENERIC_HINT, type HelpKind } from "../../core/struggle.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../../i18n/index.ts";
import {
	type AnsweredCard,
	type Card,
	type CardChoice,
	choiceLetter,
	displayName,
	type QuestionCard,
} from "./model.ts";

/** The "answered" member of TutorEvent. */
export type AnsweredEvent = Extract<TutorEvent, { type: "answered" }>;

/** The "attempt" member of TutorEvent (a missed check, or its second try). */
export type AttemptEvent = Extract<TutorEvent, { type: "attempt" }>;

/** The help controls of an open quiz, and of a missed check. */
const QUIZ_HELP: HelpKind[] = ["hint", "explain", "not-sure"];
const MISSED_HELP: HelpKind[] = ["again", "hint", "show"];

const str = (value: unknown): string => (typeof value === "string" ? value : "");

function quizChoices(quiz: QuizToolInput | undefined): CardChoice[] {
	const options = Array.isArray(quiz?.options) ? quiz.options : [];
	return options.map((text, index) => ({ index, letter: choiceLetter(index), text: str(text) }));
}

function askChoices(ask: AskToolInput | undefined): CardChoice[] {
	const options = Array.isArray(ask?.options) ? ask.options : [];
	return options.map((o, index) => ({ index, letter: choiceLetter(index), text: str(o?.label) || str(o?.value) }));
}

function quizHeading(quiz: QuizToolInput | undefined, locale: Locale): { heading: string; framing: string } {
	if (quiz?.type === "predict")
		return { heading: t(locale, "card.predict"), framing: t(locale, "card.predict.framing") };
	if (quiz?.type === "check") return { heading: t(locale, "card.check"), framing: t(locale, "card.check.framing") };
	return { heading: t(locale, "card.quiz"), framing: t(locale, "card.quiz.framing") };
}

function quizCard(toolCallId: string, quiz: QuizToolInput, locale: Locale): QuestionCard {
	const choices = quizChoices(quiz);
	const { heading, framing } = quizHeading(quiz, locale);
	return {
		kind: "question",
		locale,
		toolCallId,
		source: "quiz",
		heading,
		framing: choices.length === 0 ? `${framing} ${t(locale, "card.typeAnswer")}` : framing,
		question: str(quiz.question),
		choices,
		help: QUIZ_HELP,
	};
}

/** The card of a missed check ("Not quite": Try again, Hint, Show answer) or of its second try. */
export function attemptCard(event: AttemptEvent, locale: Locale = DEFAULT_LOCALE): QuestionCard {
	const tried = (Array.isArray(event.attempts) ? event.attempts : []).map((a) => str(a?.answer));
	const base = event.quiz
		? quizCard(event.toolCallId, event.quiz, locale)
		: { ...quizCard(event.toolCallId, { question: "", correctAnswer: "" } as QuizToolInput, locale), choices: [] };
	const last = tried.at(-1) ?? "";
	if (event.state === "retry")
		return {
			...base,
			framing: last !== "" ? t(locale, "card.secondTry", { answer: fitQuote(last) }) : t(locale, "card.tryAgain"),
			struggle: { state: "retry", tried },
		};
	return {
		...base,
		heading: t(locale, "card.notQuite"),
		framing: t(locale, "card.missed", { answer: fitQuote(last) }),
		help: MISSED_HELP,
		struggle: { state: "missed", tried },
	};
}

/** A learner's answer quoted in a framing line (one line, bounded). */
function fitQuote(text: string): string {
	const line = text.replace(/\s+/g, " ").trim();
	return `“${line.length > 80 ? `${line.slice(0, 79)}…` : line}”`;
}

function askCard(toolCallId: string, ask: AskToolInput, locale: Locale): QuestionCard {
	return {
		kind: "question",
		locale,
		toolCallId,
		source: "ask",
		heading: t(locale, "card.question"),
		question: str(ask.question),
		choices: askChoices(ask),
	};
}

const norm = (s: string): string => s.trim().toLowerCase();

/** Most tied answers a closed card names (a tie of many typed answers stays one line). */
const MAX_TIED_SHOWN = 10;

/** The card of an answered quiz or ask: what was chosen, by whom, right or wrong, and the reveal for check quizzes. */
export function answeredCard(event: AnsweredEvent, locale: Locale = DEFAULT_LOCALE): AnsweredCard {
	const result = event.result;
	const answer = str(result?.answer);
	const vote = result?.vote;
	// A group's answer is signed by the group, in the lesson's language.
	const by =
		vote && typeof vote.voters === "number"
			? { id: result.by?.id ?? "", name: t(locale, "card.theGroup", { votes: tn(locale, "tally.votes", vote.voters) }) }
			: (result?.by ?? { id: "" });
	const base = { kind: "answered" as const, locale, toolCallId: event.toolCallId, answer, by };
	// A split group vote shows no verdict and reveals nothing: the same question is voted again after the discussion.
	const revote = outcomeOf(result).tally === "split";
	const flags = {
		...(typeof result?.correct === "boolean" && !revote ? { correct: result.correct } : {}),
		...(result?.skipped === true ? { skipped: true } : {}),
		...(event.checking === true ? { checking: true } : {}),
		...(typeof result?.reason === "string" && result.reason.trim() !== "" && event.checking !== true
			? { reason: result.reason.trim() }
			: {}),
	};
	if (event.kind === "quiz") {
		const quiz = event.quiz;
		const choices = quizChoices(quiz);
		// A tie: every tied answer, no one of them chosen and no verdict on the group.
		const tie =
			Array.isArray(vote?.tie) && vote.tie.length >= 2
				? vote.tie.filter((a) => typeof a === "string").slice(0, MAX_TIED_SHOWN)
				: [];
		let chosen = -1;
		if (tie.length === 0) {
			chosen = choices.findIndex((c) => c.text === answer);
			if (chosen < 0) chosen = choices.findIndex((c) => norm(c.text) === norm(answer));
		}
		const { correct: _verdict, ...unjudged } = flags;
		const card: AnsweredCard = {
			...base,
			...(tie.length > 0 ? unjudged : flags),
			...(tie.length > 0
				? {
						tie: tie.map((a) => {
							const c = choices.find((x) => norm(x.text) === norm(a));
							return c ? `${c.letter}. ${c.text}` : a;
						}),
					}
				: {}),
			source: "quiz",
			heading: quizHeading(quiz, locale).heading,
			choices,
			...(quiz !== undefined ? { question: str(quiz.question) } : {}),
			...(chosen >= 0 ? { chosenIndex: chosen } : {}),
		};
		const help = {
			...(quiz?.type === "check" || quiz?.type === "predict" ? { quizType: quiz.type } : {}),
			...(Array.isArray(result?.attempts) && result.attempts.length > 0 ? { tries: result.attempts.length } : {}),
			...(result?.hinted === true ? { hinted: true } : {}),
			...(result?.notSure === true ? { notSure: true } : {}),
			...(result?.explainAgain === true ? { explainAgain: true } : {}),
		};
		Object.assign(card, help);
		// A check shows its answer only when it was found (with the why), after the second miss or on request;
		// a prediction always (a guess, then the answer). Judged "unsure", "not sure", "explain again" and a
		// vote that goes to a revote reveal nothing: the teacher takes it from there.
		const shows =
			result?.skipped !== true &&
			result?.notSure !== true &&
			!revote &&
			((quiz?.type === "check" && (result?.correct === true || result?.revealed === true)) ||
				(quiz?.type === "predict" && typeof result?.correct === "boolean"));
		if (shows && quiz) {
			const correctAnswer = str(quiz.correctAnswer);
			const correctIndex = choices.findIndex((c) => c.text === correctAnswer);
			card.reveal = {
				correctAnswer,
				...(correctIndex >= 0 ? { correctIndex } : {}),
				...(str(quiz.explanation).trim() !== "" ? { explanation: str(quiz.explanation) } : {}),
			};
		}
		return card;
	}
	const ask = event.ask;
	const choices = askChoices(ask);
	const options = Array.isArray(ask?.options) ? ask.options : [];
	const chosen = options.findIndex((o) => o?.value === answer);
	const label = str(result?.label) || (chosen >= 0 ? (choices[chosen]?.text ?? "") : "");
	return {
		...base,
		...flags,
		answer: label !== "" ? label : answer,
		source: "ask",
		heading: t(locale, "card.question"),
		choices,
		...(ask !== undefined ? { question: str(ask.question) } : {}),
		...(chosen >= 0 ? { chosenIndex: chosen } : {}),
	};
}

/** Engine error codes whose words we have in the catalogue (others show the engine's message). */
function errorText(event: Extract<TutorEvent, { type: "error" }>, locale: Locale): string {
	if (event.code === "empty-reply") return t(locale, "tutor.emptyReply");
	// Digits from where their run starts: "(\d+) steps" retried from every digit of a long run (quadratic).
	const steps = /(?<!\d)(\d+) steps/.exec(str(event.message))?.[1];
	if (event.code === "step-limit" && steps !== undefined) return t(locale, "tutor.stepLimit", { steps: Number(steps) });
	return str(event.message).trim() || t(locale, "tutor.somethingWrong");
}

/** The card of a tutor event in `locale` (our words; the tutor's are as it wrote them); undefined for events that are not cards (plan: use the renderer; typing). */
export function cardFromEvent(event: TutorEvent, locale: Locale = DEFAULT_LOCALE): Card | undefined {
	switch (event.type) {
		case "text":
			return str(event.text).trim() === "" ? undefined : { kind: "text", locale, tone: "plain", text: event.text };
		case "quiz":
			return quizCard(event.toolCallId, event.input, locale);
		case "ask":
			return askCard(event.toolCallId, event.input, locale);
		case "explain": {
			const input = event.input;
			return {
				kind: "explain",
				locale,
				toolCallId: event.toolCallId,
				// A checked citation (the engine verified the page holds the quoted words) closes the card.
				body: event.citation
					? `${str(input.body)}\n\n${t(locale, event.citation.part ? "card.citationPart" : "card.citation", { source: event.citation.source, page: String(event.citation.page) })}`
					: str(input.body),
				...(str(input.title).trim() !== "" ? { title: str(input.title) } : {}),
				...(input.role !== undefined ? { role: input.role } : {}),
			};
		}
		case "assessment": {
			const strands = Array.isArray(event.assessment?.strands) ? event.assessment.strands : [];
			const summary = str(event.assessment?.summary);
			return {
				kind: "assessment",
				locale,
				toolCallId: event.toolCallId,
				strands: strands.map((s) => ({ strand: str(s?.strand), assessment: str(s?.assessment) })),
				...(summary.trim() !== "" ? { summary } : {}),
			};
		}
		case "answered":
			return answeredCard(event, locale);
		case "attempt":
			return attemptCard(event, locale);
		case "hint": {
			// The engine's fallback hint (the model gave none) is ours: said in the lesson's language.
			const raw = str(event.text).trim();
			const text = raw === GENERIC_HINT ? t(locale, "card.genericHint") : raw;
			return text === ""
				? undefined
				: { kind: "text", locale, tone: "plain", text: `💡 **${t(locale, "card.hint")}:** ${text}` };
		}
		case "error": {
			const message = errorText(event, locale);
			// The engine's messages often say how to retry already (in English; ours are translated): say it once.
			const says = event.code === "empty-reply" || event.code === "step-limit" || /try again/i.test(message);
			const retry = event.retryable && !says ? ` ${t(locale, "tutor.replyToRetry")}` : "";
			return { kind: "text", locale, tone: "error", text: `${message}${retry}` };
		}
		case "ended": {
			const text =
				event.reason === "completed"
					? t(locale, "tutor.complete")
					: event.reason === "ended-by-admin"
						? t(locale, "tutor.endedByAdmin")
						: event.by !== undefined
							? t(locale, "tutor.endedBy", { who: displayName(event.by, locale) })
							: t(locale, "tutor.ended");
			return { kind: "text", locale, tone: "notice", text };
		}
		default:
			return undefined;
	}
}
