/**
 * The lesson controller: every lesson flow, written once, over a platform
 * port. Adapters decode platform events into its calls (start, end, status,
 * config, a choice, the answer form, a typed message) and implement the port;
 * the controller asks the tutor, keeps what it must remember in the state
 * store, and turns tutor events into port calls (thread-output.ts).
 */

import {
	DEFAULT_STORE_URL,
	type Learning,
	type LibraryStore,
	learnerKeyOf,
	type MaterialLimits,
	openStateStore,
	type StateStore,
} from "../../agent/index.ts";
import type { DashboardSignIn } from "../../core/contracts/dashboard.ts";
import type { HandleResult, Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { SessionSummary, Tutor } from "../../core/contracts/tutor.ts";
import type { HelpKind } from "../../core/struggle.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { createMathRenderer, type MathRenderer, type PlanPicture, type PlanRenderer } from "../../render/index.ts";
import { type AttachedFiles, createAnswerFlows, type LessonImages } from "./answers.ts";
import { createDeliveryClaims, type DeliveryClaims } from "./deliveries.ts";
import type { IncomingFile } from "./images.ts";
import { type BudgetRouter, budgetVerdict, createLessonBudget, type LessonBudgetOptions } from "./lesson-budget.ts";
import { applyLessonRulesChange, type LessonRules, type LessonRulesChange } from "./lesson-rules.ts";
import { LessonState } from "./lesson-state.ts";
import { createLibraryFlows, type LibraryFlows } from "./library.ts";
import { adminHintIn, refusalNotice } from "./notices.ts";
import type { Actor, LessonPlace, PlatformPort } from "./port.ts";
import { attachProfile, createProfileFlows, type ProfileFlows } from "./profile-flows.ts";
import type { Rephrase } from "./review.ts";
import { createSerialQueues } from "./serial-queue.ts";
import { AHEAD_MS } from "./spend-counters.ts";
import { type StartOutcome, type StartRequest, startLesson } from "./start.ts";
import { createThreadOutput } from "./thread-output.ts";
import { suggestTopics, type TopicSuggestion } from "./topic-suggestions.ts";
import { type PeriodUsage, UsageLedger } from "./usage-ledger.ts";
import { within } from "./within.ts";

/** Dependencies of createLessonController. */
export interface LessonControllerOptions {
	tutor: Tutor;
	/** Draws the plan picture (only renderPlan is used). */
	renderer: Pick<PlanRenderer, "renderPlan">;
	/** Draws formulas in cards as pictures; default: a MathJax renderer of its own. */
	math?: MathRenderer;
	port: PlatformPort;
	logger: Logger;
	/** What the controller remembers; when omitted it opens `storeUrl` (default the SQLite file), namespace = the port's name, and closes it on stop. */
	state?: StateStore;
	storeUrl?: string;
	/** Pictures sent with messages (default: none are read; a picture gets the no-vision notice). */
	images?: LessonImages;
	/** How long a thread waits for a plan picture before posting its outline instead (default 4 s). */
	pictureWaitMs?: number;
	/** Rules of a community that has none stored. */
	ruleDefaults?: Partial<LessonRules>;
	/** Where this platform's cost caps attach to the tutor's budget hook (default: no caps, nothing counted). */
	budgets?: BudgetRouter;
	now?: () => Date;
	/** Learner profiles, review, progress, report, forget-me and reminders (profile-flows.ts); without it those commands say they are off. */
	learning?: Learning;
	/** Rewords review questions (the model); default: the original wording. */
	rephrase?: Rephrase;
	/** The admins' web dashboard's sign-in links (`/lesson dashboard`); without it the command says it is off. */
	dashboard?: DashboardSignIn;
	/** The communities' libraries (`/lesson material`, `/lesson start library:`); without it those say it is off. */
	library?: LibraryStore;
	/** The bounds a library document is read within (the tutor's materialLimits; default docs/material.md's). */
	materialLimits?: Partial<MaterialLimits>;
}

/** `/lesson usage`: a community's tokens today and this month, and its price table. */
export interface UsageReport {
	day: PeriodUsage;
	month: PeriodUsage;
	prices: LessonRules["prices"];
	now: Date;
}

/** A lesson's status, for the platform to show. */
export interface LessonStatus {
	summary: SessionSummary;
	/** The plan picture, when the lesson has a map. */
	picture?: PlanPicture;
}

/** The one lesson controller of a platform. */
export interface LessonController {
	/** Deliveries seen (retries, replays, the same interaction twice), in the shared state store. */
	readonly deliveries: DeliveryClaims;
	/** Subscribe to the tutor's events (idempotent). */
	attach(): void;
	/** Let running turns finish (bounded by `waitMs`, default 10 s), post what is queued, unsubscribe, close an owned store. Never throws. */
	stop(options?: { waitMs?: number }): Promise<void>;
	/** Resolves true once every queued post went out (false when `timeoutMs` passed first). */
	flush(timeoutMs?: number): Promise<boolean>;
	/** `/lesson start`: see start.ts. */
	start(actor: Actor, place: LessonPlace, request: StartRequest): Promise<StartOutcome>;
	/** `/lesson end` or an End button: the learner or an admin. */
	end(actor: Actor, threadId: string | undefined): Promise<HandleResult | undefined>;
	/** `/lesson status`: the summary (and plan picture) or a notice when there is none or the store fails. */
	status(actor: Actor, threadId: string | undefined): Promise<LessonStatus | undefined>;
	/** `/lesson config` (admins): the rules after `change`, and whether they were saved; undefined when refused. */
	config(
		actor: Actor,
		community: string,
		change: LessonRulesChange | undefined,
	): Promise<{ rules: LessonRules; saved: boolean } | undefined>;
	/** `/lesson usage` (admins): today's and this month's usage; undefined when refused (the actor was told). */
	usage(actor: Actor, community: string): Promise<UsageReport | undefined>;
	/** The lesson of a channel (for commands run outside the thread): the actor's latest, else (admins, or `anyone`) the channel's. */
	lessonIn(community: string, channelId: string, actor: Actor, anyone?: boolean): Promise<string | undefined>;
	/** A button or select choice (0-based). */
	choose(actor: Actor, threadId: string, toolCallId: string, index: number): Promise<HandleResult>;
	/** A help control on an open quiz: Hint, Try again, Explain another way, Show answer, or Not sure (see core/struggle.ts). */
	help(actor: Actor, threadId: string, toolCallId: string, kind: HelpKind): Promise<HandleResult>;
	/** The "Answer" click: a notice, or the answer form. */
	openForm(actor: Actor, threadId: string, toolCallId: string): Promise<void>;
	/** The answer form's typed answer, with the files uploaded in the form (pictures of the learner's working). */
	submitForm(
		actor: Actor,
		threadId: string,
		toolCallId: string,
		text: string,
		files?: readonly IncomingFile[],
	): Promise<HandleResult>;
	/** The learner-profile commands (undefined when the controller has no learning service). */
	readonly profile: ProfileFlows | undefined;
	/** The web dashboard's sign-in links (undefined when the dashboard is off). */
	readonly dashboard: DashboardSignIn | undefined;
	/** What `/lesson start topic:` suggests to `by` as they type (topic-suggestions.ts): bounded in time, never rejects. */
	suggestTopics(by: Participant, community: string, typed: string): Promise<TopicSuggestion[]>;
	/** The community's library (undefined when the controller has no library store). */
	readonly library: LibraryFlows | undefined;
	/** A message typed in a lesson thread, with its attached files (pictures for the tutor) and its author (told when it was not saved). */
	typed(threadId: string, by: Participant, text: string, attached?: AttachedFiles): Promise<HandleResult>;
}

const STOP_MS = 10_000;
const NO_LESSON = (style: PlatformPort["style"], locale: Locale = DEFAULT_LOCALE) =>
	refusalNotice({ code: "unknown-session", message: "" }, style, { locale });
/** Lessons whose language is remembered (a lesson's language never changes, so the cache is never stale). */
const LOCALE_CACHE = 5_000;

/** Create the controller of one platform. */
export function createLessonController(options: LessonControllerOptions): LessonController {
	const { tutor, renderer, port, logger } = options;
	const owned = options.state ? undefined : openStateStore(options.storeUrl ?? DEFAULT_STORE_URL, port.name, logger);
	const state = new LessonState(options.state ?? (owned as StateStore), options.ruleDefaults);
	const queues = createSerialQueues(logger);
	const math = options.math ?? createMathRenderer();
	const locales = new Map<string, Locale>();
	const remember = (threadId: string, locale: Locale) => {
		if (locales.size >= LOCALE_CACHE) locales.delete(locales.keys().next().value as string);
		locales.set(threadId, locale);
	};
	/** A lesson's language, from the tutor's record (English when it cannot be read; not remembered then). */
	const localeOf = async (threadId: string): Promise<Locale> => {
		const known = locales.get(threadId);
		if (known) return known;
		const summary = await tutor.getSession(threadId).catch(() => undefined);
		if (!summary) return DEFAULT_LOCALE;
		const locale = summary.language ?? DEFAULT_LOCALE;
		remember(threadId, locale);
		return locale;
	};
	// Built before the output path: the lesson's closing message lists what comes back for review.
	let profile: ProfileFlows | undefined;
	const output = createThreadOutput({
		tutor,
		port,
		renderer,
		math,
		state,
		queues,
		logger,
		localeOf,
		...(options.pictureWaitMs !== undefined ? { pictureWaitMs: options.pictureWaitMs } : {}),
		...(options.learning
			? {
					closing: (threadId: string, ended: string, locale: Locale) =>
						profile?.closingCard(threadId, ended, locale) ?? Promise.resolve(undefined),
				}
			: {}),
	});
	const answers = createAnswerFlows({
		tutor,
		port,
		logger,
		localeOf,
		...(options.images ? { images: options.images } : {}),
	});
	const now = options.now ?? (() => new Date());
	const ledger = new UsageLedger(state.store);
	const place = port.style.place ?? "server";
	const caps: LessonBudgetOptions = { state, ledger, style: port.style, place, logger, now, localeOf };
	profile = options.learning
		? createProfileFlows({
				port,
				learning: options.learning,
				state: state.store,
				logger,
				controllerNow: now,
				ledger,
				tutor,
				placeOf: (threadId) => state.placeOf(threadId),
				...(options.library ? { library: options.library } : {}),
				localeOf,
				...(options.rephrase ? { rephrase: options.rephrase } : {}),
			})
		: undefined;
	const library = options.library
		? createLibraryFlows({
				store: options.library,
				port,
				state,
				logger,
				now,
				...(options.images?.source ? { files: options.images.source } : {}),
				...(options.materialLimits ? { limits: options.materialLimits } : {}),
			})
		: undefined;
	let detachProfile: (() => void) | undefined;
	let unsubscribe: (() => void) | undefined;
	let detachBudget: (() => void) | undefined;
	/** Gives back, every AHEAD_MS / 4, what was reserved ahead and not used (spend-counters.ts). */
	let expiring: NodeJS.Timeout | undefined;
	const expireAhead = (all = false) =>
		ledger.spend
			.expire(all)
			.catch((error: unknown) => logger.warn({ err: error }, `${port.name}: giving back reserved tokens failed`));
	let stopped = false;
	/** After a recorded click: tell the clicker privately when their turn will not run (the thread is told too). */
	const overBudget = async (actor: Actor, threadId: string, result: HandleResult): Promise<HandleResult> => {
		if (!result.ok || !options.budgets) return result;
		const verdict = await budgetVerdict(caps, threadId, actor.by).catch(() => ({ ok: true }) as const);
		if (!verdict.ok) await actor.notify(verdict.message);
		return result;
	};

	return {
		deliveries: createDeliveryClaims(state.store, logger, port.name),
		attach() {
			unsubscribe ??= tutor.subscribe(output.onEvent, { drained: (sessionId) => queues.drained(sessionId) });
			detachBudget ??= options.budgets?.attach(port.name, createLessonBudget(caps));
			if (options.budgets && !expiring) {
				expiring = setInterval(() => void expireAhead(), AHEAD_MS / 4);
				expiring.unref();
			}
			if (options.learning && profile)
				detachProfile ??= attachProfile(tutor, options.learning, profile, port.name, logger);
		},
		async stop() {
			if (stopped) return;
			stopped = true;
			// Turns already running still emit cards (a quiz nobody sees would strand its learner): wait, bounded.
			if (
				(await within(
					tutor.idle().then(() => true),
					STOP_MS,
				)) !== true
			)
				logger.warn({}, `${port.name}: stopping while lessons still run`);
			if (!(await queues.drain(STOP_MS))) logger.warn({}, `${port.name}: stopped with posts still queued`);
			unsubscribe?.();
			unsubscribe = undefined;
			detachBudget?.();
			clearInterval(expiring);
			await expireAhead(true);
			detachProfile?.();
			output.stop();
			if (!options.math) await math.close(); // the math sandbox's worker, when this controller made it
			await owned?.close();
		},
		flush: (timeoutMs = STOP_MS) => queues.drain(timeoutMs),
		async start(actor, place, request) {
			const files = options.images?.source;
			const outcome = await startLesson(
				{ tutor, port, state, logger, now, ...(files ? { files } : {}), ...(library ? { library } : {}) },
				actor,
				place,
				request,
			);
			if (outcome.ok) remember(outcome.threadId, outcome.intro.language ?? DEFAULT_LOCALE);
			if (outcome.ok && options.learning)
				await options.learning
					.notePlace(outcome.threadId, outcome.intro.learner, `${place.community}:${place.channelId}`)
					.catch((error: unknown) => logger.warn({ err: error }, `${port.name}: the learner profile was not updated`));
			return outcome;
		},
		async end(actor, threadId) {
			if (!threadId) return void (await actor.notify(NO_LESSON(port.style, actor.locale)));
			const result = await answers.end(actor, threadId);
			return result;
		},
		async status(actor, threadId) {
			let summary: SessionSummary | undefined;
			try {
				summary = threadId ? await tutor.getSession(threadId) : undefined;
			} catch (error) {
				logger.error({ err: error, sessionId: threadId }, `${port.name}: reading a lesson for its status failed`);
				return void (await actor.notify(t(actor.locale ?? DEFAULT_LOCALE, "refuse.storeDown")));
			}
			if (!summary) return void (await actor.notify(NO_LESSON(port.style, actor.locale)));
			if (!summary.plan) return { summary };
			const picture = await renderer
				.renderPlan(summary.plan.tree, summary.plan.statuses, summary.plan.mastery, summary.language)
				.catch((error: unknown) => {
					logger.warn({ err: error }, `${port.name}: the status picture failed`);
					return undefined;
				});
			return picture ? { summary, picture } : { summary };
		},
		async config(actor, community, change) {
			if (!(await actor.isAdmin())) {
				const locale = actor.locale ?? DEFAULT_LOCALE;
				const adminHint = adminHintIn(port.style, locale);
				await actor.notify(t(locale, "refuse.adminsOnlyConfig", { adminHint }));
				return undefined;
			}
			const current = await state.rules(community);
			if (!change || Object.keys(change).length === 0) return { rules: current, saved: false };
			const rules = applyLessonRulesChange(current, change, state.ruleDefaults);
			await state.saveRules(community, rules);
			logger.info({ community, rules }, `${port.name}: lesson rules changed`);
			return { rules, saved: true };
		},
		async usage(actor, community) {
			if (!(await actor.isAdmin())) {
				const locale = actor.locale ?? DEFAULT_LOCALE;
				const adminHint = adminHintIn(port.style, locale);
				await actor.notify(t(locale, "refuse.adminsOnlyUsage", { adminHint }));
				return undefined;
			}
			const at = now();
			const [day, month, rules] = await Promise.all([
				ledger.day(community, at),
				ledger.month(community, at),
				state.rules(community),
			]);
			return { day, month, prices: rules.prices, now: at };
		},
		async lessonIn(community, channelId, actor, anyone = false) {
			const own = await state.latest(community, channelId, actor.by.id);
			const ownOpen = own && (await tutor.getSession(own).catch(() => undefined))?.phase !== "ended";
			if (ownOpen) return own;
			if (anyone || (await actor.isAdmin())) return (await state.latest(community, channelId)) ?? own;
			return own;
		},
		profile,
		dashboard: options.dashboard,
		suggestTopics: (by, community, typed) =>
			suggestTopics(
				{ state, ...(options.learning ? { learning: options.learning } : {}) },
				{ learnerKey: learnerKeyOf(`${port.name}:${community}`, by), community, typed },
			),
		library,
		async choose(actor, threadId, toolCallId, index) {
			const own = await profile?.choose(actor, threadId, toolCallId, index);
			if (own) return own;
			return overBudget(actor, threadId, await answers.choose(actor, threadId, toolCallId, index));
		},
		help: async (actor, threadId, toolCallId, kind) =>
			overBudget(actor, threadId, await answers.help(actor, threadId, toolCallId, kind)),
		async openForm(actor, threadId, toolCallId) {
			if (await profile?.openForm(actor, toolCallId)) return; // a private review's question
			await answers.openForm(actor, threadId, toolCallId);
		},
		async submitForm(actor, threadId, toolCallId, text, files) {
			const own = await profile?.submitForm(actor, toolCallId, text);
			if (own) return own;
			return overBudget(actor, threadId, await answers.submitForm(actor, threadId, toolCallId, text, files));
		},
		async typed(threadId, by, text, attached) {
			const reviewed = await profile?.review.typed(threadId, by, text).catch((error: unknown) => {
				logger.error({ err: error, threadId }, `${port.name}: a review answer could not be graded`);
				return { ok: false, code: "store-unavailable", message: t(DEFAULT_LOCALE, "refuse.storeDown") } as const;
			});
			return reviewed ?? answers.typed(threadId, by, text, attached);
		},
	};
}
