/**
 * The learner-profile commands, once for every platform: `/lesson review`
 * (review.ts: privately on Discord, in a thread elsewhere), `/lesson
 * progress` (a PNG and a summary, private), `/lesson report` (admins: a CSV
 * of numbers), `/lesson forget-me` (after a confirm button) and `/lesson
 * remind on|off` (a nudge at most once a day with a one-tap "Review now").
 * Buttons reuse the question card's "pick" controls under reserved ids
 * (PROFILE_BUTTONS, and a private review's `lh-review:` controls), so every
 * platform already renders and routes them.
 */

import {
	type Learning,
	type LibraryStore,
	learnerKeyOf,
	type MaterialLimits,
	type ReportRow,
	type StateStore,
	stateKeys,
} from "../../agent/index.ts";
import type { DashboardSignIn } from "../../core/contracts/dashboard.ts";
import type { HandleResult, Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import { communityOf, platformOf } from "../../core/contracts/thread-id.ts";
import type { Tutor } from "../../core/contracts/tutor.ts";
import { DEFAULT_LOCALE, isLocale, type Locale, t, tn } from "../../i18n/index.ts";
import {
	type Card,
	type PlanPicture,
	type ProgressTopic,
	type QuestionCard,
	renderProgressPng,
} from "../../render/index.ts";
import { DailyLessonCounter } from "./daily-counter.ts";
import { markForgotten } from "./forgotten-members.ts";
import { adminHintIn } from "./notices.ts";
import type { Actor, LessonPlace, PlatformPort } from "./port.ts";
import { progressData, progressSummary } from "./progress.ts";
import { reportCsv } from "./report.ts";
import { createReviewFlow, isReviewControl, type Rephrase, type ReviewFlow, whenText } from "./review.ts";
import type { UsageLedger } from "./usage-ledger.ts";

/** Reserved ids of the profile buttons (never a model's tool call id: those carry no `lh-` prefix). */
export const PROFILE_BUTTONS = {
	reviewNow: "lh-review-now",
	forgetMe: "lh-forget-me",
	remindMe: "lh-remind-me",
} as const;

/** Review items the closing message lists by name (the rest are counted). */
const CLOSING_ITEMS = 5;

/** Whether a card's tool call id is one of the profile buttons or a private review's control (they need no lesson thread). */
export function isProfileButton(toolCallId: string | undefined): boolean {
	return (Object.values(PROFILE_BUTTONS) as string[]).includes(toolCallId ?? "") || isReviewControl(toolCallId);
}

/** How often the reminder check runs while the controller is attached. */
export const REMINDER_CHECK_MS = 60 * 60_000;

/** The learning service and the question rewording, as the adapters pass them to the controller. */
export interface LearnerServices {
	learning: Learning;
	rephrase?: Rephrase;
	/** The admins' web dashboard's sign-in links (on when LEARNHARNESS_DASHBOARD_SECRET is set). */
	dashboard?: DashboardSignIn;
	/** The communities' libraries (`/lesson material`), on the sessions' backend. */
	library?: LibraryStore;
	/** The bounds a library document is read within (the tutor's). */
	materialLimits?: Partial<MaterialLimits>;
}

/** What the profile flows need. */
export interface ProfileFlowDeps {
	port: PlatformPort;
	learning: Learning;
	/** The controller's state store (review threads, the controller's own per-lesson keys forget-me clears). */
	state: StateStore;
	logger: Logger;
	/** The controller's clock (its daily lesson counts are keyed by its day; forget-me clears them). */
	controllerNow: () => Date;
	/** The communities' libraries: forget-me removes the documents the member added. */
	library?: Pick<LibraryStore, "forgetMember">;
	/** The tutor: forget-me anonymises the learner in group lessons others started. */
	tutor?: Pick<Tutor, "forgetParticipant" | "forgetLesson">;
	/** The token ledger: forget-me moves the learner's tokens into its anonymous bucket. */
	ledger?: UsageLedger;
	rephrase?: Rephrase;
	/** Where a lesson this controller started opened (a Remind me click in its thread turns reminders on there). */
	placeOf?: (threadId: string) => Promise<LessonPlace | undefined>;
	/** A lesson's language: what a click there is answered in when the platform does not say the clicker's (Slack). */
	localeOf?: (threadId: string) => Promise<Locale>;
}

/** A reminder's address: the thread it is posted in, and the place a "Review now" opens its review in. */
interface ReminderPlace {
	threadId: string;
	community: string;
	channelId: string;
	/** The language of the member who turned reminders on (the nudge speaks it); English when absent. */
	locale?: Locale;
}

/** What a member's overview shows: topics (most recent first), reviews due now, and when the next one is due. */
export interface LearnerOverview {
	topics: ProgressTopic[];
	due: number;
	/** When the next review is due, in words ("in 3 days (2026-03-04)"); undefined when one is due now or none is stored. */
	whenNext?: string;
}

/** The profile flows of one platform. */
export interface ProfileFlows {
	readonly review: ReviewFlow;
	/**
	 * A member's progress per topic and what is due, as an overview page shows it (Slack's App Home); the
	 * `whenNext` words say when the next review is due when none is now. Rejects when the store fails.
	 */
	overview(by: Participant, community: string, locale: Locale): Promise<LearnerOverview>;
	/** `/lesson progress`: the summary and picture (undefined when nothing could be read; the actor was told). */
	progress(actor: Actor, community: string): Promise<{ text: string; picture?: PlanPicture } | undefined>;
	/** `/lesson report` (admins): the CSV and its rows; undefined when refused (the actor was told). */
	report(actor: Actor, community: string): Promise<{ csv: string; rows: ReportRow[] } | undefined>;
	/** The confirm card of `/lesson forget-me` (its one button deletes). */
	forgetCard(locale?: Locale): QuestionCard;
	/** Delete what is stored of the actor; the message that says what went. */
	forget(actor: Actor, community: string): Promise<string>;
	/** `/lesson remind on|off`: the reply. */
	remind(actor: Actor, place: LessonPlace, on: boolean): Promise<string>;
	/** `/lesson retention [days]` (admins): the reply (the current setting, or the new one). */
	retention(actor: Actor, community: string, days: number | undefined): Promise<string | undefined>;
	/** Post today's reminders (each learner at most once a day, across processes); how many went out. */
	sendReminders(): Promise<number>;
	/**
	 * The lesson's closing message with what comes back for review and when: `ended` (the closing line) leads
	 * it, and a Remind me button follows where reminders reach the learner (elsewhere, the review command).
	 * Undefined when the lesson sends nothing to review. Rejects when the store fails.
	 */
	closingCard(threadId: string, ended: string, locale: Locale): Promise<Card | undefined>;
	/** A click on a profile button or a private review's choice (`index`); undefined when `toolCallId` is not one. */
	choose(actor: Actor, threadId: string, toolCallId: string, index?: number): Promise<HandleResult | undefined>;
	/** The Answer button of a private review's question: its form (or a notice); false when `toolCallId` is not one. */
	openForm(actor: Actor, toolCallId: string): Promise<boolean>;
	/** A private review's typed answer from its form; undefined when `toolCallId` is not one. */
	submitForm(actor: Actor, toolCallId: string, text: string): Promise<HandleResult | undefined>;
}

const isPlace = (v: unknown): v is ReminderPlace =>
	typeof v === "object" &&
	v !== null &&
	typeof (v as ReminderPlace).threadId === "string" &&
	typeof (v as ReminderPlace).community === "string" &&
	typeof (v as ReminderPlace).channelId === "string";

function parsePlace(where: string | undefined): ReminderPlace | undefined {
	if (!where) return undefined;
	try {
		const v: unknown = JSON.parse(where);
		return isPlace(v) ? v : undefined;
	} catch {
		return undefined;
	}
}

/** Create the profile flows of one platform. */
export function createProfileFlows(deps: ProfileFlowDeps): ProfileFlows {
	const { port, learning, state, logger } = deps;
	// One clock for what is due and what is said about it: the learning service's.
	const now = () => learning.now();
	const keyOf = (community: string, by: Participant) => learnerKeyOf(`${port.name}:${community}`, by);
	const review = createReviewFlow({
		port,
		learning,
		state,
		logger,
		now,
		...(deps.rephrase ? { rephrase: deps.rephrase } : {}),
	});

	const forget = async (actor: Actor, community: string): Promise<string> => {
		const locale = actor.locale ?? DEFAULT_LOCALE;
		const key = keyOf(community, actor.by);
		// First: a charge of a turn still running lands in the anonymous bucket, not under their id.
		await markForgotten(state, actor.by.id);
		const profile = await learning.profile(key);
		const tutor = deps.tutor;
		// Through the tutor: it stops the lesson's turns first (a running one could save it again).
		const { sessions, reviewThreads } = await learning.forget(
			key,
			tutor?.forgetLesson ? { deleteLesson: (id) => tutor.forgetLesson?.(id) ?? Promise.resolve() } : {},
		);
		// The controller's own keys that name the learner or their lessons (intros, reviews, places, daily counts).
		for (const id of sessions) await state.delete(stateKeys.intro(id));
		for (const id of reviewThreads) await state.delete(stateKeys.review(id));
		const places = new Set([...(profile?.places ?? []), `${community}:`]);
		for (const place of places) {
			await state.delete(stateKeys.latest(place, actor.by.id));
			const latest = await state.get(stateKeys.latest(place));
			if (typeof latest === "string" && sessions.includes(latest)) await state.delete(stateKeys.latest(place));
		}
		// Group lessons someone else started: the lesson stays, the learner's id and name leave it.
		await deps.tutor?.forgetParticipant?.(actor.by);
		// Per community (a place is `<community>:<channel>`): daily lesson counts go; token usage keeps its
		// totals (budgets, /lesson usage) while the learner's id and name go.
		for (const c of new Set([...places].map((place) => place.split(":")[0] ?? community))) {
			await new DailyLessonCounter(state).forget(c, actor.by.id, deps.controllerNow());
			// The documents they added to the community's library (their uploads) go too.
			await deps.library?.forgetMember(c, actor.by.id);
			await deps.ledger?.anonymise(c, actor.by.id, deps.controllerNow());
		}
		// Last: what was deleted leaves the store's files too (SQLite keeps old copies in its WAL and free pages).
		await learning.compact();
		logger.info({ lessons: sessions.length }, `${port.name}: a learner's data was deleted on request`);
		return sessions.length === 0 && !profile
			? t(locale, "profile.nothingStored")
			: t(locale, "profile.deleted", { lessons: tn(locale, "count.lessons", sessions.length) });
	};

	const remind = async (actor: Actor, place: LessonPlace, on: boolean): Promise<string> => {
		const key = keyOf(place.community, actor.by);
		const profile = await learning.profile(key);
		const thread = profile?.sessionIds?.at(-1) ?? profile?.lessons.at(-1)?.sessionId;
		const locale = actor.locale ?? DEFAULT_LOCALE;
		if (on && !thread) return t(locale, "profile.remindFirst");
		const where: ReminderPlace | undefined = thread
			? { threadId: thread, community: place.community, channelId: place.channelId, locale }
			: undefined;
		await learning.setReminders(key, on, where ? JSON.stringify(where) : undefined);
		if (on && port.postDirect) return t(locale, "profile.remindOnDirect");
		return t(locale, on ? "profile.remindOn" : "profile.remindOff");
	};

	return {
		review,
		forget,

		async overview(by, community, locale) {
			const key = keyOf(community, by);
			const [profile, items] = await Promise.all([learning.profile(key), learning.items(key)]);
			const at = now();
			const data = progressData(profile, items, at);
			const due = items.filter((i) => Date.parse(i.card.due) <= at.getTime()).length;
			const next = items
				.map((i) => i.card.due)
				.filter((d) => Date.parse(d) > at.getTime())
				.sort()[0];
			return {
				topics: data.topics,
				due,
				...(due === 0 && next ? { whenNext: whenText(next, at, locale) } : {}),
			};
		},

		async progress(actor, community) {
			const key = keyOf(community, actor.by);
			const [profile, items] = await Promise.all([learning.profile(key), learning.items(key)]);
			const locale = actor.locale ?? DEFAULT_LOCALE;
			const data = { ...progressData(profile, items, now()), locale };
			const text = progressSummary(data, items, now(), locale);
			if (!profile || profile.lessons.length === 0) return { text };
			const png = await renderProgressPng(data).catch((error: unknown) => {
				logger.warn({ err: error }, `${port.name}: the progress picture failed`);
				return undefined;
			});
			const caption = tn(locale, "profile.caption", data.topics.length);
			return {
				text,
				picture: { key: `progress:${key}`, caption, outline: text, alt: text.slice(0, 1000), ...(png ? { png } : {}) },
			};
		},

		async report(actor, community) {
			if (!(await actor.isAdmin())) {
				const locale = actor.locale ?? DEFAULT_LOCALE;
				await actor.notify(t(locale, "profile.reportAdminsOnly", { adminHint: adminHintIn(port.style, locale) }));
				return undefined;
			}
			const rows = await learning.report(community);
			return { csv: reportCsv(rows), rows };
		},

		forgetCard: (locale = DEFAULT_LOCALE) => ({
			kind: "question",
			toolCallId: PROFILE_BUTTONS.forgetMe,
			source: "ask",
			locale,
			heading: t(locale, "profile.forgetHeading"),
			question: t(locale, "profile.forgetQuestion"),
			choices: [{ index: 0, letter: "A", text: t(locale, "profile.forgetButton") }],
		}),

		remind,

		async retention(actor, community, days) {
			const locale = actor.locale ?? DEFAULT_LOCALE;
			if (!(await actor.isAdmin())) {
				await actor.notify(t(locale, "profile.retentionAdminsOnly", { adminHint: adminHintIn(port.style, locale) }));
				return undefined;
			}
			const kept =
				days === undefined ? await learning.retention(community) : await learning.setRetention(community, days);
			return t(locale, days === undefined ? "profile.retentionKept" : "profile.retentionSaved", { days: kept });
		},

		async sendReminders() {
			let sent = 0;
			for (const due of await learning.claimReminders(`${port.name}:`)) {
				const where = parsePlace(due.where);
				if (!where || platformOf(where.threadId) !== port.name) continue;
				const learner = due.key.split(":").at(-1) ?? "";
				const direct = port.postDirect;
				const locale = isLocale(where.locale) ? where.locale : DEFAULT_LOCALE;
				const card: QuestionCard = {
					kind: "question",
					toolCallId: PROFILE_BUTTONS.reviewNow,
					source: "ask",
					heading: t(locale, "reminder.heading"),
					question:
						`${direct ? "" : (port.style.mention?.(learner) ?? "")} ${tn(locale, "reminder.due", due.due)}`.trim(),
					choices: [{ index: 0, letter: "A", text: t(locale, "reminder.button") }],
				};
				// Slack: the learner's DM (the "Slack DM"); elsewhere the latest lesson's thread.
				const posted = direct
					? await direct(where.community, learner, card)
					: (await port.postCard(where.threadId, card)).length > 0;
				if (posted) sent++;
			}
			return sent;
		},

		openForm: (actor, toolCallId) => review.openForm(actor, toolCallId),
		submitForm: (actor, toolCallId, text) => review.submit(actor, toolCallId, text),

		async closingCard(threadId, ended, locale) {
			const plan = await learning.reviewPlan(threadId);
			if (!plan) return undefined;
			const at = now();
			const lines = plan.items
				.slice(0, CLOSING_ITEMS)
				.map((i) => t(locale, "closing.reviewItem", { label: i.label, when: whenText(i.due, at, locale) }));
			if (plan.items.length > CLOSING_ITEMS)
				lines.push(t(locale, "closing.reviewMore", { count: plan.items.length - CLOSING_ITEMS }));
			const review = port.style.reviewHint ?? "`/lesson review`";
			const heading = t(locale, "closing.reviewHeading");
			if (port.style.reminders === false || plan.remindersOn) {
				const how = t(locale, plan.remindersOn ? "closing.remindersOn" : "closing.reviewRun", { review });
				const text = `${ended}\n\n**${heading}**\n${lines.join("\n")}\n${how}`;
				return { kind: "text", locale, tone: "plain", text };
			}
			return {
				kind: "question",
				locale,
				toolCallId: PROFILE_BUTTONS.remindMe,
				source: "ask",
				lead: ended,
				heading,
				question: `${lines.join("\n")}\n${t(locale, "closing.remindAsk", { review })}`,
				choices: [{ index: 0, letter: "A", text: t(locale, "closing.remindButton") }],
			};
		},

		async choose(actor, threadId, toolCallId, index) {
			if (isReviewControl(toolCallId)) return review.choose(actor, toolCallId, index ?? -1);
			if (toolCallId === PROFILE_BUTTONS.remindMe) {
				const place = await deps.placeOf?.(threadId);
				// Slack's clicks say no language: the lesson's (the card's) is the clicker's best guess.
				const locale = actor.locale ?? (await deps.localeOf?.(threadId)) ?? DEFAULT_LOCALE;
				const clicker = { ...actor, locale };
				await actor.notify(place ? await remind(clicker, place, true) : t(locale, "profile.remindUsage"));
				return { ok: true };
			}
			if (toolCallId === PROFILE_BUTTONS.forgetMe) {
				const community = communityOf(threadId);
				await actor.notify(await forget(actor, community));
				return { ok: true };
			}
			if (toolCallId !== PROFILE_BUTTONS.reviewNow) return undefined;
			const community = communityOf(threadId);
			const key = keyOf(community, actor.by);
			const where = parsePlace((await learning.profile(key))?.reminders?.where);
			if (!where) {
				await actor.notify(t(actor.locale ?? DEFAULT_LOCALE, "profile.nudgeNotYours"));
				return { ok: true };
			}
			const started = await review.start(actor, { community: where.community, channelId: where.channelId });
			// Held privately, its first question is already on screen; a thread is pointed at.
			if (started && "threadId" in started)
				await actor.notify(t(actor.locale ?? DEFAULT_LOCALE, "profile.reviewReady"));
			return { ok: true };
		},
	};
}

/**
 * Keep profiles current for this platform's lessons (each lesson's facts are recorded when it
 * ends) and check reminders every REMINDER_CHECK_MS. Returns the detach function.
 */
export function attachProfile(
	tutor: Pick<Tutor, "subscribe">,
	learning: Learning,
	flows: ProfileFlows,
	platform: string,
	logger: Logger,
): () => void {
	const unsubscribe = learning.observe(tutor, platform);
	const timer = setInterval(() => {
		flows
			.sendReminders()
			.catch((error: unknown) => logger.warn({ err: error }, `${platform}: sending reminders failed`));
		learning.sweep().catch((error: unknown) => logger.warn({ err: error }, `${platform}: the retention sweep failed`));
	}, REMINDER_CHECK_MS);
	timer.unref();
	return () => {
		unsubscribe();
		clearInterval(timer);
	};
}
