/**
 * A new lesson's first record and what it needs first: the topic as accepted, the learner's profile note
 * (bounded in time), and the record with its start note. startLesson (tutor.ts) claims the thread with it.
 */

import type { Logger } from "../../core/contracts/logger.ts";
import type { StartLessonOptions } from "../../core/contracts/tutor.ts";
import { normalizeGroupSettings } from "../../core/votes.ts";
import { DEFAULT_LOCALE, isLocale, type MessageKey, type MessageParams } from "../../i18n/index.ts";
import { lessonStartNote } from "../prompts/context.ts";
import type { SessionRecord } from "../store/types.ts";

/** Longest topic accepted. */
export const MAX_TOPIC_CHARS = 300;
/** Longest the profile lookup of a new lesson may take. */
const RECALL_MS = 2_000;

/** The topic as a lesson keeps it (spaces collapsed), or the refusal's message key. */
export function lessonTopic(
	raw: unknown,
): { ok: true; text: string } | { ok: false; key: MessageKey; vars?: MessageParams } {
	const text = typeof raw === "string" ? raw.trim().replace(/\s+/g, " ") : "";
	if (text === "") return { ok: false, key: "engine.noTopic" };
	if (text.length > MAX_TOPIC_CHARS)
		return { ok: false, key: "engine.topicTooLong", vars: { max: String(MAX_TOPIC_CHARS) } };
	return { ok: true, text };
}

/** A new lesson's record: the start note as its first message, nothing else yet. */
export function newLessonRecord(
	opts: StartLessonOptions,
	topic: string,
	prior: string | undefined,
	at: string,
	noteId: string,
): SessionRecord {
	return {
		format: 1,
		sessionId: opts.sessionId,
		topic,
		learner: opts.learner,
		mode: opts.mode,
		startedBy: opts.startedBy ?? opts.learner,
		// Only a supported language is kept (parse, don't cast); English needs no field.
		...(isLocale(opts.language) && opts.language !== DEFAULT_LOCALE ? { language: opts.language } : {}),
		...(opts.mode === "group" ? { group: normalizeGroupSettings(opts.group) } : {}),
		createdAt: at,
		updatedAt: at,
		messages: [
			{
				id: noteId,
				role: "user",
				metadata: { kind: "context", note: "start", at },
				parts: [{ type: "text", text: lessonStartNote(topic, opts.learner, opts.mode, prior) }],
			},
		],
		usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 },
		extra: {},
	};
}

/** The recall hook's note, or undefined when there is none, it fails, or it takes longer than RECALL_MS. */
export async function recallWithin(
	recall:
		| ((sessionId: string, learner: StartLessonOptions["learner"], topic: string) => Promise<string | undefined>)
		| undefined,
	opts: StartLessonOptions,
	topic: string,
	logger: Logger,
): Promise<string | undefined> {
	if (!recall) return undefined;
	let timer: NodeJS.Timeout | undefined;
	try {
		const late = new Promise<undefined>((done) => {
			timer = setTimeout(() => done(undefined), RECALL_MS);
		});
		const note = await Promise.race([recall(opts.sessionId, opts.learner, topic), late]);
		return typeof note === "string" && note.trim() !== "" ? note : undefined;
	} catch (error) {
		logger.warn(
			{ err: error, sessionId: opts.sessionId },
			"the learner profile could not be read; the lesson starts without it",
		);
		return undefined;
	} finally {
		clearTimeout(timer);
	}
}
