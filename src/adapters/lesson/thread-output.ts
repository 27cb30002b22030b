/**
 * Tutor events -> the lesson's thread, through the platform port: cards,
 * the answered state as an edit of the question's card, the plan picture on
 * every `plan` event (the engine emits one only when the map or its current
 * node changed: it owns "which map was shown"), typing and the working status
 * (work-status.ts: a turn's phases, cleared once its cards are out), a solo
 * lesson's explanations offered to the port for streaming to its learner
 * (PostOptions.streamTo), and the lesson's end.
 * A picture that takes longer than `pictureWaitMs` is posted as its text
 * outline instead, so it never holds the next question back by more than that
 * (its render finishes in the background and is cached for the next time).
 * Work is queued per session so a thread reads in the tutor's order. The engine
 * decides which process posts a question's card (it emits one only from the
 * process that holds the session, and says whether that process still does
 * just before the post: `mayPost`); the output path reports where each card
 * went (the engine keeps it on the session's record, saved with its next save,
 * and is asked for it when the card's state changes; a replayed question
 * carries it). A failure is logged, never thrown.
 */

import type { TutorEvent } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { PostedCard, Tutor } from "../../core/contracts/tutor.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import {
	answeredCard,
	type Card,
	cardFromEvent,
	type MathRenderer,
	type PlanPicture,
	type PlanRenderer,
	planAltText,
	planCaption,
	planMermaidSource,
	planOutline,
	planPictureKey,
	prepareCard,
	tallyCard,
} from "../../render/index.ts";
import type { LessonState } from "./lesson-state.ts";
import { closingLine } from "./notices.ts";
import type { PlatformPort, PostOptions } from "./port.ts";
import type { SerialQueues } from "./serial-queue.ts";
import { createThreadSequencer, type ThreadPost } from "./thread-sequencer.ts";
import { createTypingIndicators } from "./typing.ts";
import { createWorkStatuses } from "./work-status.ts";

/** Dependencies of the output path. */
export interface ThreadOutputDeps {
	port: PlatformPort;
	/** Draws the plan picture (only renderPlan is used). */
	renderer: Pick<PlanRenderer, "renderPlan">;
	/** Draws the formulas of cards (pictures posted with them); without it TeX shows as text. */
	math?: MathRenderer;
	state: LessonState;
	/** Where cards were posted: reported to the engine, asked of it; and whether this process may still post them. */
	tutor: Pick<Tutor, "posted" | "postedCard" | "mayPost">;
	queues: SerialQueues;
	logger: Logger;
	/** The language of a lesson (its cards' and notices' words); default English. Must not throw. */
	localeOf?: (threadId: string) => Promise<Locale>;
	/** How long the thread waits for a plan picture before posting its outline instead (default 4 s). */
	pictureWaitMs?: number;
	/**
	 * The lesson's closing message built on its closing line (what comes back for review, when, and a
	 * Remind me); undefined: the closing line alone. May reject (the closing line is posted then).
	 */
	closing?: (threadId: string, ended: string, locale: Locale) => Promise<Card | undefined>;
}

/** Default bound of the wait for a plan picture. */
export const PICTURE_WAIT_MS = 4_000;

type PlanEvent = Extract<TutorEvent, { type: "plan" }>;

/** The picture of a plan without its PNG (caption, outline, alt text): what is posted when drawing is too slow. */
function outlineOnly(event: PlanEvent, why: string, locale: Locale): PlanPicture {
	const { tree, statuses, mastery } = event;
	const source = planMermaidSource(tree, statuses, mastery);
	return {
		key: planPictureKey(locale === DEFAULT_LOCALE ? source : `${source}\0${locale}`),
		caption: planCaption(tree, statuses, mastery, locale),
		outline: planOutline(tree, statuses, mastery, locale),
		alt: planAltText(tree, statuses, mastery, undefined, locale),
		error: why,
	};
}

/** The tutor's event sink for one platform (returns at once, never throws), and a stop for its timers. */
export interface ThreadOutput {
	onEvent(event: TutorEvent): void;
	/** Stop every typing indicator. */
	stop(): void;
}

type QuestionEvent = Extract<TutorEvent, { type: "quiz" | "ask" }>;

/** Posts after which a turn usually goes on (the working status is shown again after them). */
const MID_TURN_POSTS: ReadonlySet<TutorEvent["type"]> = new Set(["text", "explain", "plan", "assessment"]);

/** Create the output path of one port. */
export function createThreadOutput(deps: ThreadOutputDeps): ThreadOutput {
	const { port, renderer, math, state, tutor, queues, logger } = deps;
	const localeOf = (threadId: string): Promise<Locale> =>
		(deps.localeOf?.(threadId) ?? Promise.resolve(DEFAULT_LOCALE)).catch(() => DEFAULT_LOCALE);
	const pictureWaitMs = Math.max(0, deps.pictureWaitMs ?? PICTURE_WAIT_MS);
	const sequencer = createThreadSequencer();
	const tag = port.name;
	const typingLoops = port.startTyping
		? createTypingIndicators(
				(id) => port.startTyping?.(id) ?? Promise.resolve(),
				port.limits.typingRefreshMs ?? 8_000,
				logger,
				tag,
				port.limits.typingDelayMs ?? 0,
			)
		: undefined;
	const statuses = createWorkStatuses(port, localeOf, logger);
	const typing = (threadId: string, active: boolean) => {
		typingLoops?.set(threadId, active);
		port.typing?.(threadId, active);
		statuses?.turn(threadId, active);
	};

	/** The card with its formulas drawn (a failure leaves the TeX as code: prepareCard never throws). */
	const prepared = async (card: Card): Promise<Card> => (math ? prepareCard(card, math) : card);

	const cardOf = (event: TutorEvent, lead: string | undefined, locale: Locale): Card | undefined => {
		const card = cardFromEvent(event, locale);
		if (!card) return undefined;
		if (lead !== undefined && (card.kind === "question" || card.kind === "explain")) return { ...card, lead };
		if (event.type === "ended" && card.kind === "text")
			return { ...card, text: closingLine(card.text, port.style.startHint, locale) };
		return card;
	};

	/** Tell the engine where a question's card is (it rides the session's next save). */
	const remember = (threadId: string, toolCallId: string, card: PostedCard): void => {
		try {
			tutor.posted?.(threadId, toolCallId, card);
		} catch (error) {
			logger.warn({ err: error, sessionId: threadId }, `${tag}: remembering a card failed`);
		}
	};

	/**
	 * A question's card found among the thread's messages (its poster stopped between posting it and
	 * remembering it), remembered now; undefined when none is there or the platform cannot look.
	 */
	async function foundInThread(threadId: string, toolCallId: string): Promise<PostedCard | undefined> {
		const found = await port.findCard?.(threadId, toolCallId);
		if (!found || found.length === 0) return undefined;
		remember(threadId, toolCallId, { messageIds: found });
		return { messageIds: found };
	}

	/** Whether this process may still post the session's question cards (the engine's word; a failure counts as yes). */
	const mayPost = async (threadId: string, toolCallId: string, receivedAt: number): Promise<boolean> => {
		try {
			return (await tutor.mayPost?.(threadId, toolCallId, receivedAt)) ?? true;
		} catch (error) {
			logger.warn({ err: error, sessionId: threadId }, `${tag}: asking whether to post a card failed; posting it`);
			return true;
		}
	};

	async function postQuestion(
		threadId: string,
		event: QuestionEvent,
		lead: string | undefined,
		receivedAt: number,
	): Promise<void> {
		// A question re-sent after a restart or a takeover is posted only if no card of it was: one the engine knows of
		// stays the one, and so does one found in the thread (its poster stopped before its ids were saved).
		if (event.replay) {
			if (event.posted ?? tutor.postedCard?.(threadId, event.toolCallId)) return;
			if (await foundInThread(threadId, event.toolCallId)) {
				logger.info({ sessionId: threadId, toolCallId: event.toolCallId }, `${tag}: found a card its poster left`);
				return;
			}
		}
		const card = cardOf(event, lead, await localeOf(threadId));
		if (!card) return;
		// `plain`: the starts before died posting it (a formula?): its formulas go as code, no pictures drawn.
		const ready = event.plain ? await prepareCard(card) : await prepared(card);
		// A process paused since the engine emitted it may have lost the lesson to another, which posts it instead.
		if (!(await mayPost(threadId, event.toolCallId, receivedAt))) return;
		const messageIds = await port.postCard(threadId, ready);
		if (messageIds.length === 0) return;
		// Only a lead that shares the controls' message is re-shown when that message becomes the answered state.
		const keepLead = lead !== undefined && messageIds.length === 1;
		remember(threadId, event.toolCallId, { messageIds, ...(keepLead ? { lead } : {}) });
	}

	/**
	 * Where a question's card is: as the engine remembers it, or found in the thread when the engine does not
	 * know it (another process posted it, or its poster stopped before its ids were saved: a restart, a
	 * takeover); undefined when neither knows.
	 */
	async function postedCard(threadId: string, toolCallId: string): Promise<PostedCard | undefined> {
		let posted: PostedCard | undefined;
		try {
			posted = tutor.postedCard?.(threadId, toolCallId);
		} catch (error) {
			logger.warn({ err: error, sessionId: threadId }, `${tag}: asking for a posted card failed; posting it anew`);
		}
		return posted ?? foundInThread(threadId, toolCallId);
	}

	/**
	 * Show a question's new state in place of its posted card (answered; a missed check's "Not quite"; its
	 * second try), keeping the lead; posted anew when the card is gone. A new post becomes the question's
	 * card, so the next state edits it.
	 */
	async function postInPlace(
		threadId: string,
		event: Extract<TutorEvent, { type: "answered" | "attempt" }>,
	): Promise<void> {
		const posted = await postedCard(threadId, event.toolCallId);
		const locale = await localeOf(threadId);
		const shown = event.type === "answered" ? answeredCard(event, locale) : cardFromEvent(event, locale);
		if (!shown) return;
		const card = await prepared({ ...shown, ...(posted?.lead !== undefined ? { lead: posted.lead } : {}) });
		if (!posted || !(await port.editCard(threadId, posted.messageIds, card))) {
			// Posted anew, it becomes the question's card: its next state (a graded answer's verdict) edits it.
			const messageIds = await port.postCard(threadId, card);
			if (messageIds.length > 0) remember(threadId, event.toolCallId, { messageIds });
		}
		// Group lessons: the vote's tally, one message of its own under the closed question.
		const tally = event.type === "answered" ? tallyCard(event, locale) : undefined;
		if (tally) await port.postCard(threadId, await prepared(tally));
	}

	/** The picture, or undefined once `pictureWaitMs` passed (a rejection still rejects). */
	async function pictureWithin(event: PlanEvent, locale: Locale): Promise<PlanPicture | undefined> {
		const rendering = renderer.renderPlan(event.tree, event.statuses, event.mastery, locale);
		let timer: NodeJS.Timeout | undefined;
		const late = new Promise<undefined>((resolve) => {
			timer = setTimeout(() => resolve(undefined), pictureWaitMs);
		});
		try {
			const picture = await Promise.race([rendering, late]);
			if (picture === undefined) rendering.catch(() => undefined); // it finishes (and is cached) on its own
			return picture;
		} finally {
			clearTimeout(timer);
		}
	}

	async function postPlan(threadId: string, event: PlanEvent): Promise<void> {
		const locale = await localeOf(threadId);
		const picture =
			(await pictureWithin(event, locale)) ??
			outlineOnly(event, t(locale, "plan.slowOutline", { ms: pictureWaitMs }), locale);
		if (!picture.png && picture.error)
			logger.warn(
				{ sessionId: threadId, error: picture.error },
				`${tag}: plan picture unavailable; posting the outline`,
			);
		if (!(await port.postPicture(threadId, picture)))
			logger.warn({ sessionId: threadId }, `${tag}: the plan did not post`);
	}

	async function postEnded(threadId: string, event: Extract<TutorEvent, { type: "ended" }>): Promise<void> {
		typing(threadId, false);
		const locale = await localeOf(threadId);
		const card = cardOf(event, undefined, locale);
		const closing =
			card?.kind === "text" && deps.closing
				? await deps.closing(threadId, card.text, locale).catch((error: unknown) => {
						logger.warn({ err: error, sessionId: threadId }, `${tag}: the review plan could not be read`);
						return undefined;
					})
				: undefined;
		const shown = closing ?? card;
		if (shown) await port.postCard(threadId, shown);
		const intro = await state.intro(threadId);
		if (intro) await port.lessonEnded?.(threadId, intro, event);
	}

	/** A solo lesson's explanation may stream to its learner; a group lesson's is posted (undefined). */
	async function streamOptions(threadId: string): Promise<PostOptions | undefined> {
		const intro = await state.intro(threadId).catch(() => undefined);
		return intro?.mode === "solo" ? { streamTo: intro.learner } : undefined;
	}

	/** Post one thing; `receivedAt`: when its event reached this sink (the engine was emitting it). */
	async function post(threadId: string, { event, lead }: ThreadPost, receivedAt: number): Promise<void> {
		switch (event.type) {
			case "quiz":
			case "ask":
				return postQuestion(threadId, event, lead, receivedAt);
			case "answered":
			case "attempt":
				return postInPlace(threadId, event);
			case "plan":
				return postPlan(threadId, event);
			case "ended":
				return postEnded(threadId, event);
			case "typing":
				return;
			default: {
				const card = cardOf(event, lead, await localeOf(threadId));
				if (!card) return;
				const options = card.kind === "explain" && port.streams ? await streamOptions(threadId) : undefined;
				await port.postCard(threadId, await prepared(card), options);
			}
		}
	}

	const onEvent = (event: TutorEvent) => {
		const receivedAt = performance.now();
		try {
			const threadId = typeof event?.sessionId === "string" ? event.sessionId : "";
			if (port.decodeThreadId(threadId) === undefined) return; // another platform's lesson
			// Typing is immediate: it should show while earlier posts are still queued.
			if (event.type === "typing") typing(threadId, event.active === true);
			if (event.type === "plan") statuses?.phase(threadId, "drawing");
			if (event.type === "answered" && event.checking) statuses?.phase(threadId, "checking");
			// The sequencer holds a plan picture or tutor text until it knows what follows (see thread-sequencer.ts).
			for (const next of sequencer.push(event)) {
				if (next.event.type === "typing") continue;
				void queues.run(threadId, async () => {
					try {
						await post(threadId, next, receivedAt);
						typingLoops?.posted(threadId);
						// A post mid-turn (Slack removes the status with it) while the model goes on: shown again. A question
						// or an edit is not: a question ends the learner's wait, an edit removes nothing.
						if (MID_TURN_POSTS.has(next.event.type)) statuses?.posted(threadId);
					} catch (error) {
						logger.error({ err: error, sessionId: threadId, type: next.event.type }, `${tag}: posting failed`);
					}
				});
			}
			// The turn's cards (or a graded answer's verdict) landed: the working status goes, unless a turn runs.
			const settles =
				(event.type === "typing" && event.active !== true) ||
				((event.type === "answered" || event.type === "attempt") && !("checking" in event && event.checking));
			if (statuses && settles) void queues.run(threadId, () => statuses.settled(threadId));
		} catch (error) {
			logger.error({ err: error }, `${tag}: could not queue a tutor event`);
		}
	};
	return {
		onEvent,
		stop: () => typingLoops?.stopAll(),
	};
}
