/**
 * `/lesson review`: a short retrieval session over the learner's due items
 * (at most REVIEW_MAX_ITEMS, and REVIEW_MAX_MS from the start), one question
 * at a time. Each answer is judged as a lesson judges a typed quiz answer
 * (the learning service's `judge`: the deterministic judge, then the grader
 * for what it leaves open; "I don't know" is a miss, not a guess), fed to
 * FSRS, and answered in one line: right, or the expected answer with why (the
 * grader's reason or the question's stored explanation). The closing line says
 * what is due next. Not a tutor session (no model turn is needed).
 *
 * Where it runs: on a port that reviews privately (`reviewsPrivately`:
 * Discord) in the member's own ephemeral replies, each question a card with
 * letter buttons or an Answer button (its form); elsewhere (Slack, the
 * terminal) in a thread of its own, answered by typing there. Its state lives
 * in the state store (`review:<thread or review id>`), so an answer after a
 * restart still counts.
 */

import { randomUUID } from "node:crypto";
import type { Learning, ReviewItem, ReviewJudgement, ReviewOutcome, StateStore } from "../../agent/index.ts";
import { learnerKeyOf, stateKeys } from "../../agent/index.ts";
import type { HandleResult, Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { perKey } from "../../core/per-key.ts";
import { DEFAULT_LOCALE, isLocale, type Locale, t, tn } from "../../i18n/index.ts";
import { type Card, choiceLetter, type QuestionCard } from "../../render/index.ts";
import type { Actor, LessonPlace, PlatformPort } from "./port.ts";
import { within } from "./within.ts";

/** Most items one review asks. */
export const REVIEW_MAX_ITEMS = 8;
/** How long one review runs (later answers close it). */
export const REVIEW_MAX_MS = 10 * 60_000;
/** How long a rewording may take before the original question is asked. */
const REPHRASE_MS = 4_000;
const STATE_TTL_MS = 24 * 60 * 60_000;
/** Longest echo of a private answer in its feedback. */
const ECHO_CHARS = 200;
/** The tool call id prefix of a private review's controls: `lh-review:<review id>:<question index>`. */
const CONTROL_PREFIX = "lh-review:";

/** A question as the review asks it (its wording may be the model's). */
type AskedItem = Omit<ReviewItem, "sessionId" | "nodeId" | "card">;

/** A review in progress, as stored under `review:<threadId or review id>`. */
interface ReviewState {
	key: string;
	learnerId: string;
	items: AskedItem[];
	index: number;
	right: number;
	deadline: number;
	done?: boolean;
	/** The learner's language when the review started (its words stay in it). */
	locale?: Locale;
	/** Held in the member's private replies (no thread). */
	private?: boolean;
}

/** Rewords a review question (the model); undefined or a throw keeps the original. */
export type Rephrase = (item: ReviewItem) => Promise<string | undefined>;

/** What the review flow needs. */
export interface ReviewDeps {
	port: PlatformPort;
	learning: Learning;
	state: StateStore;
	logger: Logger;
	now: () => Date;
	rephrase?: Rephrase;
}

/** What `start` did: a thread opened for the review, or the review runs in the member's private replies. */
export type ReviewStarted = { threadId: string } | { privately: true };

/** The review flow of one platform. */
export interface ReviewFlow {
	/** Start a review for the actor at `place` (a thread opens, or the first question shows privately), or tell them nothing is due. */
	start(actor: Actor, place: LessonPlace): Promise<ReviewStarted | undefined>;
	/** A message typed in a thread: handled when the thread is a review (undefined otherwise). */
	typed(threadId: string, by: Participant, text: string): Promise<HandleResult | undefined>;
	/** A choice on a private review's question (`controlId`: see isReviewControl); undefined when it is not one. */
	choose(actor: Actor, controlId: string, index: number): Promise<HandleResult | undefined>;
	/** The Answer button of a private review's question: its form, or a notice; false when it is not one. */
	openForm(actor: Actor, controlId: string): Promise<boolean>;
	/** The typed answer from a private review's form; undefined when it is not one. */
	submit(actor: Actor, controlId: string, text: string): Promise<HandleResult | undefined>;
}

/** Whether a card's tool call id is a private review's control. */
export const isReviewControl = (toolCallId: string | undefined): boolean =>
	toolCallId?.startsWith(CONTROL_PREFIX) === true;

const controlOf = (reviewId: string, index: number): string => `${CONTROL_PREFIX}${reviewId}:${index}`;

/** The review id and question index a control names, or undefined. */
function parseControl(controlId: string): { reviewId: string; index: number } | undefined {
	if (!isReviewControl(controlId)) return undefined;
	const rest = controlId.slice(CONTROL_PREFIX.length);
	const cut = rest.lastIndexOf(":");
	const index = Number(rest.slice(cut + 1));
	const reviewId = rest.slice(0, cut);
	return cut > 0 && Number.isInteger(index) && index >= 0 && /^[0-9a-f-]{36}$/.test(reviewId)
		? { reviewId, index }
		: undefined;
}

const isReviewState = (v: unknown): v is ReviewState =>
	typeof v === "object" &&
	v !== null &&
	typeof (v as ReviewState).key === "string" &&
	typeof (v as ReviewState).learnerId === "string" &&
	Array.isArray((v as ReviewState).items) &&
	typeof (v as ReviewState).index === "number";

/** "in 3 days (2026-03-04)", "now", from now to `iso`, in `locale`. */
export function whenText(iso: string | undefined, now: Date, locale: Locale = DEFAULT_LOCALE): string {
	if (!iso) return t(locale, "review.whenNone");
	const days = Math.ceil((Date.parse(iso) - now.getTime()) / 86_400_000);
	const date = iso.slice(0, 10);
	if (days <= 0) return t(locale, "review.whenNow");
	return days === 1 ? t(locale, "review.whenTomorrow", { date }) : t(locale, "review.whenDays", { count: days, date });
}

/** The question's text, options lettered (a thread's review, answered by typing). */
function questionText(item: AskedItem, n: number, of: number, locale: Locale): string {
	const lines = [t(locale, "review.heading", { n, of, topic: item.topic, label: item.label }), item.question];
	for (const [i, o] of (item.options ?? []).entries()) lines.push(`${choiceLetter(i)}. ${o}`);
	lines.push(t(locale, item.options ? "review.typeLetter" : "review.typeAnswer"));
	return lines.join("\n");
}

/** The question as a card with its controls (a private review): letter buttons, or an Answer button. */
function questionCard(reviewId: string, s: ReviewState, locale: Locale): QuestionCard {
	const item = s.items[s.index] as AskedItem;
	const heading = t(locale, "review.heading", {
		n: s.index + 1,
		of: s.items.length,
		topic: item.topic,
		label: item.label,
	}).replaceAll("**", "");
	return {
		kind: "question",
		toolCallId: controlOf(reviewId, s.index),
		source: "quiz",
		locale,
		heading,
		question: item.question,
		choices: (item.options ?? []).map((text, index) => ({ index, letter: choiceLetter(index), text })),
	};
}

const localeOf = (s: ReviewState): Locale => (isLocale(s.locale) ? s.locale : DEFAULT_LOCALE);

/** The one line that answers an answer: right, or the expected answer and why it is the answer. */
function feedbackLine(judged: Exclude<ReviewJudgement, { kind: "refused" }>, item: AskedItem, locale: Locale): string {
	const answer = item.correctAnswer;
	if (judged.kind === "right") return t(locale, "review.right", { answer });
	const sentence = judged.why ? judged.why.replace(/(?<![.!?…])$/, ".") : "";
	const why = sentence === "" ? "" : ` ${t(locale, "review.why", { why: sentence })}`;
	const key =
		judged.kind === "wrong" ? "review.wrong" : judged.kind === "dont-know" ? "review.dontKnow" : "review.unread";
	return t(locale, key, { answer, why });
}

/** Where a review's words go: a thread, or the member's private replies. */
interface ReviewOutput {
	say(text: string): Promise<void>;
	ask(s: ReviewState): Promise<void>;
}

/** Create the review flow. */
export function createReviewFlow(deps: ReviewDeps): ReviewFlow {
	const { port, learning, state, logger } = deps;
	const serial = perKey();
	const post = (threadId: string, text: string) => port.postCard(threadId, { kind: "text", tone: "plain", text });
	const load = async (id: string): Promise<ReviewState | undefined> => {
		const stored: unknown = await state.get(stateKeys.review(id));
		return isReviewState(stored) ? stored : undefined;
	};
	const save = (id: string, s: ReviewState) => state.set(stateKeys.review(id), s, STATE_TTL_MS);

	const reword = async (item: ReviewItem): Promise<string> => {
		if (!deps.rephrase) return item.question;
		const worded = await within(deps.rephrase(item), REPHRASE_MS);
		return typeof worded === "string" && worded.trim() !== "" ? worded.trim() : item.question;
	};

	const closing = async (out: ReviewOutput, s: ReviewState): Promise<void> => {
		const next = await learning.due(s.key, 0).catch(() => undefined);
		const locale = localeOf(s);
		const dueLine =
			next && next.dueCount > 0
				? tn(locale, "review.moreDue", next.dueCount)
				: t(locale, "review.next", { when: whenText(next?.nextDue, deps.now(), locale) });
		await out.say(t(locale, "review.done", { right: s.right, asked: s.index, due: dueLine }));
	};

	const threadOutput = (threadId: string): ReviewOutput => ({
		say: async (text) => void (await post(threadId, text)),
		ask: async (s) =>
			void (await post(
				threadId,
				questionText(s.items[s.index] as AskedItem, s.index + 1, s.items.length, localeOf(s)),
			)),
	});
	const privateOutput = (actor: Actor, reviewId: string): ReviewOutput => ({
		say: (text) => actor.notify(text),
		ask: async (s) => {
			const card: Card = questionCard(reviewId, s, localeOf(s));
			await (actor.show
				? actor.show(card)
				: actor.notify(questionText(s.items[s.index] as AskedItem, s.index + 1, s.items.length, localeOf(s))));
		},
	});

	/** One answer to the current question of review `id` (already checked to be the learner's): judged, graded, answered. */
	const answer = async (id: string, s: ReviewState, text: string, out: ReviewOutput): Promise<HandleResult> => {
		const locale = localeOf(s);
		const item = s.items[s.index];
		if (!item || s.done) return { ok: false, code: "ended", message: t(locale, "review.over") };
		if (deps.now().getTime() > s.deadline) {
			s.done = true;
			await save(id, s);
			await out.say(t(locale, "review.timeUp"));
			await closing(out, s);
			return { ok: true };
		}
		const judged = await learning.judge(item, text, locale);
		if (judged.kind === "refused") {
			await out.say(judged.message);
			return { ok: false, code: "invalid-answer", message: judged.message };
		}
		const outcome: ReviewOutcome = judged.kind === "right" ? "good" : "again";
		await learning.grade(s.key, item.id, outcome);
		s.index++;
		if (outcome === "good") s.right++;
		s.done = s.index >= s.items.length;
		await save(id, s);
		const line = feedbackLine(judged, item, locale);
		// A private answer was typed in a form nobody sees afterwards: the feedback says what it was (its first line).
		const typed = text.trim().replace(/\s+/g, " ");
		const echo = typed.length > ECHO_CHARS ? `${typed.slice(0, ECHO_CHARS - 1)}…` : typed;
		await out.say(s.private ? `${t(locale, "review.yourAnswer", { answer: echo })}\n${line}` : line);
		if (s.done) await closing(out, s);
		else await out.ask(s);
		logger.debug({ review: id, outcome, judged: judged.kind }, `${port.name}: review answer graded`);
		return { ok: true };
	};

	/** The private review a control names, when it is the actor's and that question is the current one; else a notice. */
	const privateReview = async (
		actor: Actor,
		controlId: string,
		read: (reviewId: string) => Promise<ReviewState | undefined> = load,
	): Promise<{ reviewId: string; s: ReviewState } | { refused: HandleResult } | undefined> => {
		const control = parseControl(controlId);
		if (!control) return undefined;
		const s = await read(control.reviewId);
		const locale = s ? localeOf(s) : (actor.locale ?? DEFAULT_LOCALE);
		const refuse = async (code: "ended" | "not-allowed" | "already-answered", key: Parameters<typeof t>[1]) => {
			const message = t(locale, key);
			await actor.notify(message);
			return { refused: { ok: false, code, message } as HandleResult };
		};
		if (!s || s.done) return refuse("ended", "review.overNext");
		if (s.learnerId !== actor.by.id) return refuse("not-allowed", "review.notYours");
		if (s.index !== control.index) return refuse("already-answered", "review.stale");
		return { reviewId: control.reviewId, s };
	};

	/** An answer to a private review's question: `text` reads it from the review (a choice names an option). */
	const answerPrivately = async (actor: Actor, controlId: string, text: (s: ReviewState) => string | undefined) => {
		const control = parseControl(controlId);
		if (!control) return undefined;
		return serial(control.reviewId, async (): Promise<HandleResult> => {
			const found = await privateReview(actor, controlId);
			if (!found) return { ok: false, code: "not-pending", message: "" };
			if ("refused" in found) return found.refused;
			const typed = text(found.s) ?? "";
			actor.recorded?.();
			return answer(found.reviewId, found.s, typed, privateOutput(actor, found.reviewId));
		});
	};

	return {
		async start(actor, place) {
			const key = learnerKeyOf(`${port.name}:${place.community}`, actor.by);
			const due = await learning.due(key, REVIEW_MAX_ITEMS);
			const locale = actor.locale ?? DEFAULT_LOCALE;
			if (due.items.length === 0) {
				const message =
					due.total === 0
						? t(locale, "review.nothingYet")
						: t(locale, "review.nothingDue", { when: whenText(due.nextDue, deps.now(), locale) });
				await actor.notify(message);
				return undefined;
			}
			// Discord: in the member's own ephemeral replies (nobody else sees a review); elsewhere a thread.
			const privately = port.reviewsPrivately === true && actor.show !== undefined;
			let id: string;
			if (privately) id = randomUUID();
			else {
				const opened = await port.openThread(
					{ community: place.community, channelId: place.channelId },
					{
						topic: tn(locale, "review.topic", due.items.length),
						learner: actor.by,
						startedBy: actor.by,
						mode: "solo",
					},
				);
				if (!opened.ok) {
					await actor.notify(opened.message);
					return undefined;
				}
				id = opened.threadId;
			}
			const items: AskedItem[] = [];
			for (const item of due.items) {
				const { card: _card, sessionId: _s, nodeId: _n, ...rest } = item;
				items.push({ ...rest, question: await reword(item) });
			}
			const s: ReviewState = {
				key,
				learnerId: actor.by.id,
				items,
				index: 0,
				right: 0,
				deadline: deps.now().getTime() + REVIEW_MAX_MS,
				...(locale !== DEFAULT_LOCALE ? { locale } : {}),
				...(privately ? { private: true } : {}),
			};
			// Forget-me deletes the state of every review the learner had (a thread's or a private one's).
			await learning.noteReviewThread(key, actor.by, id);
			await save(id, s);
			await (privately ? privateOutput(actor, id) : threadOutput(id)).ask(s);
			return privately ? { privately: true } : { threadId: id };
		},

		async typed(threadId, by, text) {
			if (!(await load(threadId))) return undefined;
			return serial(threadId, async (): Promise<HandleResult> => {
				const s = await load(threadId); // re-read in order
				const locale = s ? localeOf(s) : DEFAULT_LOCALE;
				if (!s || s.done) return { ok: false, code: "ended", message: t(locale, "review.overNext") };
				if (by.id !== s.learnerId) return { ok: false, code: "not-allowed", message: t(locale, "review.notYours") };
				return answer(threadId, s, text, threadOutput(threadId));
			});
		},

		choose: (actor, controlId, index) => answerPrivately(actor, controlId, (s) => s.items[s.index]?.options?.[index]),

		async openForm(actor, controlId) {
			const control = parseControl(controlId);
			if (!control) return false;
			// The form must be the click's first response (Discord: within 3 s): a slow store opens it anyway, unworded
			// (its submit is checked like any answer).
			const read = await within(
				load(control.reviewId).then((s) => ({ s })),
				port.limits.formPrecheckMs,
			);
			if (!read) {
				await actor.openForm?.({ threadId: "", toolCallId: controlId, question: "" });
				return true;
			}
			const found = await privateReview(actor, controlId, async () => read.s);
			if (!found) return false;
			if ("refused" in found) return true;
			const item = found.s.items[found.s.index] as AskedItem;
			const locale = localeOf(found.s);
			await actor.openForm?.({ threadId: "", toolCallId: controlId, question: item.question, locale });
			return true;
		},

		submit: (actor, controlId, text) => answerPrivately(actor, controlId, () => text),
	};
}
