/**
 * Starting a lesson, once for every platform: the topic, who it is for (an
 * admin may start one for a member), the community's rules (channels, the
 * default mode), the daily limit (counted before anything is created, given
 * back on failure), then the thread opens with its intro as its first message
 * and only then does the tutor start: the intro always comes first, on every
 * platform. A refused start closes the thread again.
 */

import type { LessonMode, Participant } from "../../core/contracts/events.ts";
import type { Logger } from "../../core/contracts/logger.ts";
import type { StartLessonResult, Tutor } from "../../core/contracts/tutor.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import type { ImageSource } from "./images.ts";
import { channelAllowed } from "./lesson-rules.ts";
import type { LessonState } from "./lesson-state.ts";
import type { LibraryFlows } from "./library.ts";
import { fetchMaterial, type MaterialSource } from "./material-file.ts";
import { adminHintIn, channelNotAllowedNotice, dailyLimitNotice } from "./notices.ts";
import type { Actor, LessonIntro, LessonPlace, PlatformPort } from "./port.ts";

/** What the person asked for. */
export interface StartRequest {
	topic: string;
	/** The mode asked for; the community's default otherwise. */
	mode?: LessonMode;
	/** Start it for this member (admins only); the actor otherwise. */
	learner?: Participant;
	/** The language asked for (`/lesson start language:`); it wins over the actor's own locale. */
	language?: Locale;
	/** The learner's material (a PDF) the lesson is grounded in (docs/material.md). */
	material?: MaterialSource;
	/** A document of the community's library (its name) the lesson is grounded in instead (library.ts). */
	library?: string;
}

/** start's outcome: the lesson's thread and intro, or the notice the actor was given. */
export type StartOutcome =
	| {
			ok: true;
			threadId: string;
			intro: LessonIntro;
			/** The material the lesson teaches from, and what was neutralised in it (for the starter). */
			/** `unit: "part"`: a text file, its pages are parts (docs/material.md). */
			material?: { name: string; pages: number; warnings: string[]; unit?: "part" };
	  }
	| { ok: false; message: string };

/** What starting needs. */
export interface StartDeps {
	tutor: Tutor;
	port: PlatformPort;
	state: LessonState;
	logger: Logger;
	now: () => Date;
	/** Where the platform's files may be downloaded from (the pictures' source): the material comes from there. */
	files?: ImageSource;
	/** The community's library (library.ts); without it a start from the library is refused. */
	library?: Pick<LibraryFlows, "material">;
}

/** Start a lesson; a refusal is told to the actor (and comes back as the outcome). Rejects only when the store does. */
export async function startLesson(
	deps: StartDeps,
	actor: Actor,
	place: LessonPlace,
	request: StartRequest,
): Promise<StartOutcome> {
	const { tutor, port, state, logger } = deps;
	const { startHint } = port.style;
	// The explicit choice, else the starter's platform language, else English; fixed for the lesson's life.
	const language: Locale = request.language ?? actor.locale ?? DEFAULT_LOCALE;
	const notice = actor.locale ?? language;
	const refuse = async (message: string): Promise<StartOutcome> => {
		await actor.notify(message);
		return { ok: false, message };
	};
	const topic = request.topic.replace(/\s+/g, " ").trim();
	if (topic === "") return refuse(t(notice, "start.noTopic", { start: startHint }));
	const learner = request.learner ?? actor.by;
	const admin = await actor.isAdmin();
	if (learner.id !== actor.by.id && !admin)
		return refuse(t(notice, "start.adminsOnlyFor", { adminHint: adminHintIn(port.style, notice) }));
	const rules = await state.rules(place.community);
	if (!channelAllowed(rules, place.channelId)) {
		const channel = port.style.channel ?? ((id: string) => `<#${id}>`);
		return refuse(channelNotAllowedNotice(rules.channels.map(channel), startHint, notice));
	}
	if (place.threadId && (await tutor.getSession(place.threadId)))
		return refuse(t(notice, "start.threadHasLesson", { start: startHint }));
	// The material is downloaded (and its type checked) before anything is counted or opened.
	const fetched = request.material ? await fetchMaterial(request.material, deps.files) : undefined;
	if (fetched && !fetched.ok) return refuse(t(notice, "start.materialRefused", { why: fetched.why }));
	let material = fetched?.ok ? fetched.upload : undefined;
	if (request.library !== undefined) {
		if (material) return refuse(t(notice, "library.oneSource"));
		const item = deps.library
			? await deps.library.material(place.community, request.library, notice)
			: { ok: false as const, why: t(notice, "library.off") };
		if (!item.ok) return refuse(item.why);
		material = item.upload;
	}
	const now = deps.now();
	const counted = await state.counter.take(place.community, learner.id, admin ? 0 : rules.lessonsPerDay, now);
	if (!counted.ok) return refuse(dailyLimitNotice(counted.count, rules.lessonsPerDay, notice));
	const giveBack = () =>
		state.counter.giveBack(place.community, learner.id, now).catch((error: unknown) => {
			logger.warn({ err: error, community: place.community }, `${port.name}: could not give back a daily count`);
		});

	const intro: LessonIntro = {
		topic,
		learner,
		startedBy: actor.by,
		mode: request.mode ?? rules.defaultMode,
		...(language !== DEFAULT_LOCALE ? { language } : {}),
	};
	const opened = await port.openThread(place, intro);
	if (!opened.ok) {
		await giveBack();
		return refuse(opened.message);
	}
	const threadId = opened.threadId;
	let result: StartLessonResult;
	try {
		result = await tutor.startLesson({
			sessionId: threadId,
			topic,
			learner,
			mode: intro.mode,
			startedBy: actor.by,
			language,
			...(intro.mode === "group" ? { group: { voteSeconds: rules.voteSeconds, showNames: rules.voteNames } } : {}),
			...(material ? { material } : {}),
		});
	} catch (error) {
		logger.error({ err: error, sessionId: threadId }, `${port.name}: the tutor could not start a lesson`);
		result = { ok: false, code: "invalid-topic", message: t(notice, "start.tutorFailed") };
	}
	if (!result.ok) {
		await giveBack();
		await port.closeThread(threadId, place, result.message);
		const why = result.code === "exists" ? t(notice, "start.threadHasLessonShort") : result.message;
		if (result.code === "material")
			return refuse(t(notice, "start.materialRefused", { why: port.style.escape?.(why) ?? why }));
		return refuse(t(notice, "start.couldNotStart", { why: port.style.escape?.(why) ?? why }));
	}
	await state.saveLesson(threadId, place, intro).catch((error: unknown) => {
		logger.warn({ err: error, sessionId: threadId }, `${port.name}: could not remember the lesson's intro`);
	});
	logger.info(
		{ sessionId: threadId, learnerId: learner.id, mode: intro.mode, language },
		`${port.name}: lesson started`,
	);
	return { ok: true, threadId, intro, ...(result.material ? { material: result.material } : {}) };
}
