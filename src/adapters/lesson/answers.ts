/**
 * The learner's side of a lesson, once for every platform: a choice (button
 * or select), the answer form (checked against the tutor's summary before it
 * opens), a typed answer in it, and a message typed in the thread. The tutor
 * decides every answer (pending? allowed? solo or group?); a refusal becomes
 * a private notice in the platform's words, and records nothing.
 */

import type { HandleResult, LearnerEvent, RefusalCode } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { SessionSummary, Tutor } from "../../core/contracts/tutor.ts";
import type { LearnerImage } from "../../core/learner-images.ts";
import type { HelpKind } from "../../core/struggle.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../../i18n/index.ts";
import { collectImages, describeImageProblems, type ImageSource, type IncomingFile, limitsOf } from "./images.ts";
import { type RefusedAction, refusalNotice } from "./notices.ts";
import type { Actor, PlatformPort } from "./port.ts";
import { voteAckText } from "./votes.ts";
import { within } from "./within.ts";

/** What the answer flows need. */
export interface AnswerDeps {
	tutor: Tutor;
	port: PlatformPort;
	logger: Logger;
	/** Pictures sent with messages: whether the model sees them, and where the platform's files come from. */
	images?: LessonImages;
	/** The language of a lesson (default: English for all). Must not throw. */
	localeOf?: (threadId: string) => Promise<Locale>;
}

/** How a platform's pictures reach the tutor. */
export interface LessonImages {
	/** The configured model reads images (LEARNHARNESS_MODEL_VISION); false: pictures are refused with a notice. */
	vision: boolean;
	source: ImageSource;
}

/** Files attached to a typed message (maybe none), and who to tell when something does not reach the tutor. */
export interface AttachedFiles {
	files: IncomingFile[];
	actor: Actor;
}

/** Why `userId` may not answer `toolCallId`, from the tutor's summary (undefined summary: the lesson is unknown). */
export function refusalFromSummary(
	summary: SessionSummary | undefined,
	toolCallId: string,
	userId: string,
): RefusalCode | undefined {
	if (!summary) return "unknown-session";
	if (summary.phase === "ended") return "ended";
	if (!summary.pending.some((p) => p.toolCallId === toolCallId)) return "not-pending";
	if (summary.mode === "solo" && summary.learner.id !== userId) return "not-allowed";
	return undefined;
}

/** Empty answers are refused before the tutor sees them (English; the catalogue's `refuse.emptyAnswer`). */
export const EMPTY_ANSWER_NOTICE = t(DEFAULT_LOCALE, "refuse.emptyAnswer");

const TIMED_OUT = "timed out" as const;

/** The learner flows of one platform. */
export function createAnswerFlows(deps: AnswerDeps) {
	const { tutor, port, logger, images: pictures } = deps;
	const mention = port.style.mention ?? ((id: string) => `<@${id}>`);
	const lessonLocale = deps.localeOf ?? (async () => DEFAULT_LOCALE);
	/** A private notice's language: the member's own when the platform said, else the lesson's. */
	const localeFor = async (actor: Actor, threadId: string): Promise<Locale> =>
		actor.locale ?? (await lessonLocale(threadId).catch(() => DEFAULT_LOCALE));

	/** Tell the actor why the tutor refused, naming whose lesson it is when that matters. */
	async function refused(actor: Actor, threadId: string, result: HandleResult, action: RefusedAction): Promise<void> {
		if (result.ok) return;
		logger.info({ sessionId: threadId, code: result.code, userId: actor.by.id }, `${port.name}: ${action} refused`);
		const learner =
			result.code === "not-allowed" ? (await tutor.getSession(threadId).catch(() => undefined))?.learner.id : undefined;
		const locale = await localeFor(actor, threadId);
		await actor.notify(
			refusalNotice(result, port.style, { action, locale, ...(learner ? { learner: mention(learner) } : {}) }),
		);
	}

	async function deliver(actor: Actor, threadId: string, event: LearnerEvent): Promise<HandleResult> {
		const result = await tutor.handle(threadId, event);
		actor.recorded?.();
		await refused(actor, threadId, result, event.type === "end" ? "end" : "answer");
		// Group lessons: a vote is acknowledged privately (the tally comes later, for everyone).
		if (result.ok && result.vote)
			await actor.notify(voteAckText(result.vote, port.style, await localeFor(actor, threadId)));
		return result;
	}

	/** Whether `userId` may write in the lesson of `threadId` (no lesson, an ended one, someone else's solo lesson: no). */
	async function speaksInLesson(threadId: string, userId: string): Promise<boolean> {
		const summary = await tutor.getSession(threadId).catch(() => undefined);
		if (!summary || summary.phase === "ended") return false;
		return summary.mode === "group" || summary.learner.id === userId;
	}

	/** The pictures of a message and, when something was left out, the notice (worded by whether text went through). */
	async function readPictures(
		files: readonly IncomingFile[],
		locale: Locale,
	): Promise<{ images: LearnerImage[]; notice?: (withText: boolean) => string }> {
		const tail = (withText: boolean) => (withText ? t(locale, "refuse.noVisionTextSent") : "");
		if (!pictures?.vision)
			return {
				images: [],
				notice: (withText) => tn(locale, "refuse.noVision", files.length, { tail: tail(withText) }),
			};
		const limits = limitsOf(pictures.source);
		// Files past the per-message cap are refused by collectImages. The byte budget (per lesson, per
		// learner, shared by every process) is the engine's: it tells the thread what it did not send.
		const started = Date.now();
		const read = await collectImages(files, pictures.source);
		logger.debug(
			{ files: files.length, images: read.images.length, problems: read.problems.length, ms: Date.now() - started },
			`${port.name}: pictures read`,
		);
		if (read.problems.length === 0) return { images: read.images };
		const lines = describeImageProblems(read.problems, limits, locale);
		return { images: read.images, notice: (withText) => `${lines.join(" ")}${tail(withText)}` };
	}

	return {
		refused,

		/** A choice on a quiz or ask with options (a button or a select): its 0-based index. */
		choose(actor: Actor, threadId: string, toolCallId: string, index: number): Promise<HandleResult> {
			return deliver(actor, threadId, { type: "answer", toolCallId, value: index, by: actor.by });
		},

		/** A help control on an open quiz (Hint, Try again, Explain another way, Show answer, Not sure). */
		help(actor: Actor, threadId: string, toolCallId: string, kind: HelpKind): Promise<HandleResult> {
			return deliver(actor, threadId, { type: "help", toolCallId, kind, by: actor.by });
		},

		/**
		 * The "Answer" click: the tutor's summary (bounded by the platform's first-response deadline) says
		 * whether the form may open and what it asks; when it cannot tell in time the form opens anyway
		 * (the submit is checked by the tutor).
		 */
		async openForm(actor: Actor, threadId: string, toolCallId: string): Promise<void> {
			// within() gives undefined on a timeout or a rejection: wrap the summary so an unknown lesson stays distinct.
			const read = await within(
				tutor.getSession(threadId).then((s) => ({ s })),
				port.limits.formPrecheckMs,
			);
			const summary = read ? read.s : TIMED_OUT;
			let question = "";
			// Pictures only when the summary said in time that they may go with this answer.
			let takesPictures = false;
			// The form is the lesson's (its words match the cards); a notice is the member's own.
			const lesson = summary !== TIMED_OUT ? summary?.language : undefined;
			if (summary !== TIMED_OUT) {
				const code = refusalFromSummary(summary, toolCallId, actor.by.id);
				if (code) {
					const learner = code === "not-allowed" && summary ? { learner: mention(summary.learner.id) } : {};
					const locale = actor.locale ?? lesson ?? DEFAULT_LOCALE;
					return actor.notify(
						refusalNotice({ code, message: "" }, port.style, { action: "answer", locale, ...learner }),
					);
				}
				const pending = summary?.pending.find((p) => p.toolCallId === toolCallId);
				question = pending?.input?.question ?? "";
				// A group's quiz is a private vote until the tally: no pictures there (the engine refuses them too).
				takesPictures = pictures?.vision === true && !(summary?.mode === "group" && pending?.kind === "quiz");
			}
			const locale = lesson ?? actor.locale;
			const limits = takesPictures && pictures ? limitsOf(pictures.source) : undefined;
			await actor.openForm?.({
				threadId,
				toolCallId,
				question,
				...(locale ? { locale } : {}),
				...(limits ? { pictures: { count: limits.maxPerMessage, maxBytes: limits.maxBytes } } : {}),
			});
		},

		/**
		 * A typed answer from the form, with the files uploaded in it (pictures of the learner's working: read as a
		 * thread message's are, with the same limits and notices); an empty answer is refused here. A picture that
		 * does not reach the tutor never holds back the answer: it goes without it, and the actor is told why.
		 */
		async submitForm(
			actor: Actor,
			threadId: string,
			toolCallId: string,
			text: string,
			files: readonly IncomingFile[] = [],
		): Promise<HandleResult> {
			const answer = text.trim();
			if (answer === "") {
				await actor.notify(t(await localeFor(actor, threadId), "refuse.emptyAnswer"));
				return { ok: false, code: "invalid-answer", message: EMPTY_ANSWER_NOTICE };
			}
			// Files of someone who may not answer here are never downloaded (the tutor refuses the answer below).
			const read =
				files.length > 0 && (await speaksInLesson(threadId, actor.by.id))
					? await readPictures(files, await localeFor(actor, threadId))
					: undefined;
			const images = read?.images ?? [];
			const result = await deliver(actor, threadId, {
				type: "reply",
				toolCallId,
				text: answer,
				by: actor.by,
				...(images.length > 0 ? { images } : {}),
			});
			if (result.ok && read?.notice) await actor.notify(read.notice(true));
			return result;
		},

		/**
		 * A message typed in the thread, with the files attached to it. People chat in threads: a refusal (not
		 * the learner, no lesson) stays quiet, and their files are never downloaded. For the lesson's learner
		 * (anyone in group mode) the pictures go with the text when the model sees images; the actor is told
		 * privately what did not (too big, not a picture, a model without vision), and the text goes through.
		 */
		async typed(threadId: string, by: Actor["by"], text: string, attached?: AttachedFiles): Promise<HandleResult> {
			const trimmed = text.trim();
			const files = attached?.files ?? [];
			let images: LearnerImage[] = [];
			if (attached && files.length > 0 && (await speaksInLesson(threadId, by.id))) {
				const read = await readPictures(files, await localeFor(attached.actor, threadId));
				images = read.images;
				if (read.notice) await attached.actor.notify(read.notice(trimmed !== ""));
			}
			if (trimmed === "" && images.length === 0) return { ok: false, code: "invalid-answer", message: "empty" };
			const event: LearnerEvent = { type: "message", text: trimmed, by, ...(images.length > 0 ? { images } : {}) };
			const result = await tutor.handle(threadId, event);
			if (result.ok) return result;
			// Not saved (the store failed, or the tutor is restarting): the writer is told to send it again.
			// Every other refusal stays quiet (not the learner, no lesson: people chat in threads).
			if ((result.code === "store-unavailable" || result.code === "closing") && attached) {
				logger.warn({ sessionId: threadId, code: result.code }, `${port.name}: a typed message was not saved`);
				const locale = await localeFor(attached.actor, threadId);
				await attached.actor.notify(
					result.code === "closing"
						? refusalNotice(result, port.style, { locale })
						: t(locale, "engine.messageNotSaved"),
				);
			} else logger.debug({ sessionId: threadId, code: result.code }, `${port.name}: message not for the tutor`);
			return result;
		},

		/** End the lesson (the learner, or an admin). */
		async end(actor: Actor, threadId: string): Promise<HandleResult> {
			const privileged = await actor.isAdmin();
			const result = await deliver(actor, threadId, { type: "end", by: actor.by, privileged });
			if (result.ok) await actor.notify(t(await localeFor(actor, threadId), "start.ending"));
			return result;
		},
	};
}

/** The learner flows, as createAnswerFlows makes them. */
export type AnswerFlows = ReturnType<typeof createAnswerFlows>;
