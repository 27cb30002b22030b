/**
 * `/lesson review`: a short retrieval session in a thread of its own, over the
 * learner's due items (at most REVIEW_MAX_ITEMS, and REVIEW_MAX_MS from the
 * start). One question at a time, answered by typing in the thread; each
 * answer is judged by the deterministic judge (core/answer-match.ts; a letter
 * picks an option), fed to FSRS through the learning service, and answered
 * with why; the closing line says what is due next. Its own small flow on the
 * PlatformPort (not a tutor session: no model turn is needed), so Discord,
 * Slack and the terminal share it. Its state lives in the state store, so an
 * answer after a restart still counts.
 */

import type { Learning, ReviewItem, ReviewOutcome, StateStore } from "../../agent/index.ts";
import { learnerKeyOf, stateKeys } from "../../agent/index.ts";
import { judgeAnswer } from "../../core/answer-match.ts";
import type { HandleResult, Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { DEFAULT_LOCALE, isLocale, type Locale, t, tn } from "../../i18n/index.ts";
import { choiceLetter } from "../../render/index.ts";
import type { Actor, LessonPlace, PlatformPort } from "./port.ts";
import { within } from "./within.ts";

/** Most items one review asks. */
export const REVIEW_MAX_ITEMS = 8;
/** How long one review runs (later answers close it). */
export const REVIEW_MAX_MS = 10 * 60_000;
/** How long a rewording may take before the original question is asked. */
const REPHRASE_MS = 4_000;
const STATE_TTL_MS = 24 * 60 * 60_000;

/** A question as the review asks it (its wording may be the model's). */
interface AskedItem {
	id: string;
	topic: string;
	label: string;
	question: string;
	correctAnswer: string;
	options?: string[];
	acceptedAnswers?: string[];
}

/** A review in progress, as stored under `review:<threadId>`. */
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

/** The review flow of one platform. */
export interface ReviewFlow {
	/** Start a review for the actor at `place` (a thread opens), or tell them nothing is due. */
	start(actor: Actor, place: LessonPlace): Promise<string | undefined>;
	/** A message typed in a thread: handled when the thread is a review (undefined otherwise). */
	typed(threadId: string, by: Participant, text: string): Promise<HandleResult | undefined>;
}

const isReviewState = (v: unknown): v is ReviewState =>
	typeof v === "object" &&
	v !== null &&
	typeof (v as ReviewState).key === "string" &&
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

/** The question's text, options lettered. */
function questionText(item: AskedItem, n: number, of: number, locale: Locale): string {
	const lines = [t(locale, "review.heading", { n, of, topic: item.topic, label: item.label }), item.question];
	for (const [i, o] of (item.options ?? []).entries()) lines.push(`${choiceLetter(i)}. ${o}`);
	lines.push(t(locale, item.options ? "review.typeLetter" : "review.typeAnswer"));
	return lines.join("\n");
}

const localeOf = (s: ReviewState): Locale => (isLocale(s.locale) ? s.locale : DEFAULT_LOCALE);

/** The given answer, a lone letter read as that option. */
function answerOf(item: AskedItem, text: string): string {
	const t = text.trim();
	if (item.options && /^[a-z]\)?\.?$/i.test(t)) {
		const index = t.toUpperCase().charCodeAt(0) - 65;
		return item.options[index] ?? t;
	}
	return t;
}

/** Create the review flow. */
export function createReviewFlow(deps: ReviewDeps): ReviewFlow {
	const { port, learning, state, logger } = deps;
	const chains = new Map<string, Promise<unknown>>();
	const serial = <T>(key: string, work: () => Promise<T>): Promise<T> => {
		const next = (chains.get(key) ?? Promise.resolve()).catch(() => undefined).then(work);
		chains.set(key, next);
		const drop = () => chains.get(key) === next && chains.delete(key);
		next.then(drop, drop);
		return next;
	};
	const post = (threadId: string, text: string) => port.postCard(threadId, { kind: "text", tone: "plain", text });

	const reword = async (item: ReviewItem): Promise<string> => {
		if (!deps.rephrase) return item.question;
		const worded = await within(deps.rephrase(item), REPHRASE_MS);
		return typeof worded === "string" && worded.trim() !== "" ? worded.trim() : item.question;
	};

	const closing = async (threadId: string, s: ReviewState): Promise<void> => {
		const next = await learning.due(s.key, 0).catch(() => undefined);
		const asked = s.index;
		const locale = localeOf(s);
		const dueLine =
			next && next.dueCount > 0
				? tn(locale, "review.moreDue", next.dueCount)
				: t(locale, "review.next", { when: whenText(next?.nextDue, deps.now(), locale) });
		await post(threadId, t(locale, "review.done", { right: s.right, asked, due: dueLine }));
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
			};
			await learning.noteReviewThread(key, actor.by, opened.threadId);
			await state.set(stateKeys.review(opened.threadId), s, STATE_TTL_MS);
			const first = items[0] as AskedItem;
			await post(opened.threadId, questionText(first, 1, items.length, locale));
			return opened.threadId;
		},

		async typed(threadId, by, text) {
			const stored: unknown = await state.get(stateKeys.review(threadId));
			if (!isReviewState(stored)) return undefined;
			return serial(threadId, async (): Promise<HandleResult> => {
				const s = (await state.get(stateKeys.review(threadId))) as ReviewState; // checked above; re-read in order
				const locale = isReviewState(s) ? localeOf(s) : DEFAULT_LOCALE;
				if (!isReviewState(s) || s.done) return { ok: false, code: "ended", message: t(locale, "review.overNext") };
				if (by.id !== s.learnerId) return { ok: false, code: "not-allowed", message: t(locale, "review.notYours") };
				const item = s.items[s.index];
				if (!item) return { ok: false, code: "ended", message: t(locale, "review.over") };
				if (deps.now().getTime() > s.deadline) {
					s.done = true;
					await state.set(stateKeys.review(threadId), s, STATE_TTL_MS);
					await post(threadId, t(locale, "review.timeUp"));
					await closing(threadId, s);
					return { ok: true };
				}
				const verdict = judgeAnswer(
					answerOf(item, text),
					item.correctAnswer,
					item.acceptedAnswers ?? [],
					isLocale(s.locale) ? s.locale : undefined,
				);
				const outcome: ReviewOutcome = verdict === "correct" ? "good" : "again";
				await learning.grade(s.key, item.id, outcome);
				s.index++;
				if (outcome === "good") s.right++;
				s.done = s.index >= s.items.length;
				await state.set(stateKeys.review(threadId), s, STATE_TTL_MS);
				const feedback =
					outcome === "good"
						? t(locale, "review.right", { answer: item.correctAnswer })
						: t(locale, verdict === "unsure" ? "review.unread" : "review.wrong", { answer: item.correctAnswer });
				await post(threadId, feedback);
				const next = s.items[s.index];
				if (next) await post(threadId, questionText(next, s.index + 1, s.items.length, locale));
				else await closing(threadId, s);
				logger.debug({ threadId, outcome }, `${port.name}: review answer graded`);
				return { ok: true };
			});
		},
	};
}
